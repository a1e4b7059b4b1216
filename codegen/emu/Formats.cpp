// Tile data formats (docs/emulator.md "Conventions"): a tile is 32 x 32 elements row-major.
//   Float32   4096 bytes: IEEE binary32, little-endian.
//   Float16_b 2048 bytes: bf16 (the upper half of binary32), rounded to nearest, ties to even.
//   Bfp8_b    1088 bytes: 64 shared exponents (byte g is the biased binary32 exponent of the 16
//             consecutive elements 16g .. 16g+15, i.e. row g/2, columns 16*(g%2) ..), then 1024
//             bytes sign (bit 7) + 7-bit magnitude m, value = m * 2^(exp - 127 - 6). The packer
//             aligns each element's 24-bit significand to the group's largest exponent and rounds
//             to 7 bits (nearest, ties to even); a group whose largest element would round up to
//             128 takes the next exponent instead. Values below 2^-126 (binary32 subnormals) and
//             zero pack to 0; Inf and NaN are not represented (they saturate).
//   Bfp4_b     576 bytes: the same 64 exponents, then 512 bytes of 4-bit sign (bit 3) + 3-bit
//             magnitude m, value = m * 2^(exp - 127 - 2); element 16g+2j in the low nibble of
//             byte 64+8g+j, 16g+2j+1 in the high one. Rounded like Bfp8_b except that, as in
//             tt-metal's host packer, a magnitude that rounds up to 8 saturates to 7 and a zero
//             magnitude has no sign.
// These loops are the emulator's hot path (every unpack and pack), hence plain and branch-light.
#include "Runtime.h"
#include "ttlplan_host_io.h"

#include <cmath>
#include <cstring>

namespace ttlplan::emu {
namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t toBf16Bits(float f) {
  uint32_t u = bitsOf(f);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu))
    return static_cast<uint16_t>((u >> 16) | 0x40); // NaN stays a (quiet) NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

/// |x|'s `width`-bit magnitude aligned to biased exponent `shared` (>= x's exponent unless x is
/// Inf/NaN), rounded to nearest, ties to even, on all the significand's bits. May return
/// 2^width (the caller moves to the next exponent or saturates). Inf and NaN give 2^width - 1.
uint32_t bfpMagnitude(uint32_t bits, uint32_t shared, uint32_t width) {
  const uint32_t exp = (bits >> 23) & 0xffu;
  if (exp == 0) return 0;                                      // zero and subnormals
  if (exp == 0xffu) return (1u << width) - 1;                  // Inf/NaN saturate
  const uint32_t significand = (bits & 0x7fffffu) | 0x800000u; // 24 bits, leading one at bit 23
  const uint32_t shift = (24 - width) + (shared - exp);        // keep `width` bits
  if (shift > 24) return 0;                                    // below half an ulp
  const uint32_t kept = significand >> shift;
  const uint32_t rest = significand & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

/// The group's shared exponent: the largest biased exponent of its 16 values (`bits`), 0xfe at
/// most (Inf/NaN saturate to the largest finite exponent).
uint32_t sharedExponent(const float* v, uint32_t* bits) {
  uint32_t shared = 0;
  for (int i = 0; i < 16; ++i) {
    bits[i] = bitsOf(v[i]);
    const uint32_t e = (bits[i] >> 23) & 0xffu;
    shared = e > shared ? e : shared;
  }
  return shared == 0xffu ? 0xfeu : shared;
}

void packBfp8(const float* in, uint8_t* dst) {
  uint8_t* exps = dst;
  uint8_t* mant = dst + 64;
  for (uint32_t g = 0; g < 64; ++g) {
    uint32_t bits[16];
    uint32_t shared = sharedExponent(in + 16 * g, bits);
    uint32_t m[16];
    bool overflow = false;
    for (int i = 0; i < 16; ++i) {
      m[i] = bfpMagnitude(bits[i], shared, 7);
      overflow |= m[i] > 127;
    }
    if (overflow && shared < 0xfeu) {
      ++shared;
      for (int i = 0; i < 16; ++i)
        m[i] = bfpMagnitude(bits[i], shared, 7);
    }
    exps[g] = static_cast<uint8_t>(shared);
    for (int i = 0; i < 16; ++i) {
      const uint32_t mag = m[i] > 127 ? 127 : m[i];
      mant[16 * g + i] = static_cast<uint8_t>(((bits[i] >> 24) & 0x80u) | mag);
    }
  }
}

/// Bfp4_b as tt-metal's host packer does it (convert_u32_to_bfp<Bfp4_b>): magnitudes that round
/// up to 8 saturate to 7 (no exponent change), and a zero magnitude has no sign.
void packBfp4(const float* in, uint8_t* dst) {
  uint8_t* exps = dst;
  uint8_t* mant = dst + 64;
  for (uint32_t g = 0; g < 64; ++g) {
    uint32_t bits[16];
    const uint32_t shared = sharedExponent(in + 16 * g, bits);
    exps[g] = static_cast<uint8_t>(shared);
    uint8_t nibble[16];
    for (int i = 0; i < 16; ++i) {
      uint32_t mag = bfpMagnitude(bits[i], shared, 3);
      mag = mag > 7 ? 7 : mag;
      nibble[i] = static_cast<uint8_t>(mag == 0 ? 0 : (((bits[i] >> 28) & 0x8u) | mag));
    }
    for (int j = 0; j < 8; ++j) // element 2j in the low nibble, 2j+1 in the high one
      mant[8 * g + j] = static_cast<uint8_t>(nibble[2 * j] | (nibble[2 * j + 1] << 4));
  }
}

void unpackBfp4(const uint8_t* src, float* out) {
  const uint8_t* exps = src;
  const uint8_t* mant = src + 64;
  for (uint32_t g = 0; g < 64; ++g) {
    const float scale = std::ldexp(1.0f, static_cast<int>(exps[g]) - 127 - 2);
    for (uint32_t i = 0; i < 16; ++i) {
      const uint32_t nib = (mant[8 * g + i / 2] >> (4 * (i % 2))) & 0xfu;
      const float mag = static_cast<float>(nib & 0x7u) * scale;
      out[16 * g + i] = (nib & 0x8u) ? -mag : mag;
    }
  }
}

void unpackBfp8(const uint8_t* src, float* out) {
  const uint8_t* exps = src;
  const uint8_t* mant = src + 64;
  for (uint32_t g = 0; g < 64; ++g) {
    const float scale = std::ldexp(1.0f, static_cast<int>(exps[g]) - 127 - 6);
    for (uint32_t i = 0; i < 16; ++i) {
      const uint8_t b = mant[16 * g + i];
      const float mag = static_cast<float>(b & 0x7f) * scale;
      out[16 * g + i] = (b & 0x80) ? -mag : mag;
    }
  }
}

} // namespace

float bf16Round(float value) {
  return floatOf(static_cast<uint32_t>(toBf16Bits(value)) << 16);
}

uint32_t formatTileBytes(tt::DataFormat format) {
  switch (format) {
  case tt::DataFormat::Float16_b:
    return 2048;
  case tt::DataFormat::Float32:
    return 4096;
  case tt::DataFormat::Bfp8_b:
    return 1088;
  case tt::DataFormat::Bfp4_b:
    return 576;
  default:
    return 0;
  }
}

bool formatSupported(tt::DataFormat format) {
  return formatTileBytes(format) != 0;
}

const char* formatName(tt::DataFormat format) {
  switch (format) {
  case tt::DataFormat::Float16_b:
    return "Float16_b";
  case tt::DataFormat::Float32:
    return "Float32";
  case tt::DataFormat::Bfp8_b:
    return "Bfp8_b";
  case tt::DataFormat::Bfp4_b:
    return "Bfp4_b";
  default:
    return "unsupported format";
  }
}

void unpackTile(tt::DataFormat format, const uint8_t* src, float* out) {
  switch (format) {
  case tt::DataFormat::Float32:
    std::memcpy(out, src, 4 * kTileElems);
    return;
  case tt::DataFormat::Float16_b:
    for (uint32_t i = 0; i < kTileElems; ++i) {
      uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);
      out[i] = floatOf(static_cast<uint32_t>(h) << 16);
    }
    return;
  case tt::DataFormat::Bfp8_b:
    unpackBfp8(src, out);
    return;
  case tt::DataFormat::Bfp4_b:
    unpackBfp4(src, out);
    return;
  default:
    std::memset(out, 0, 4 * kTileElems);
    return;
  }
}

void packTile(tt::DataFormat format, const float* in, uint8_t* dst) {
  switch (format) {
  case tt::DataFormat::Float32:
    std::memcpy(dst, in, 4 * kTileElems);
    return;
  case tt::DataFormat::Float16_b:
    for (uint32_t i = 0; i < kTileElems; ++i) {
      const uint16_t h = toBf16Bits(in[i]);
      std::memcpy(dst + 2 * i, &h, 2);
    }
    return;
  case tt::DataFormat::Bfp8_b:
    packBfp8(in, dst);
    return;
  case tt::DataFormat::Bfp4_b:
    packBfp4(in, dst);
    return;
  default:
    return;
  }
}

uint32_t tileBytes(tt::DataFormat format) {
  return formatTileBytes(format);
}

float roundToBf16(float value) {
  return bf16Round(value);
}

void rowMajorToFaces(const float* in, float* out) {
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c)
      out[(r / 16) * 512 + (c / 16) * 256 + (r % 16) * 16 + c % 16] = in[32 * r + c];
}

void facesToRowMajor(const float* in, float* out) {
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t c = 0; c < 32; ++c)
      out[32 * r + c] = in[(r / 16) * 512 + (c / 16) * 256 + (r % 16) * 16 + c % 16];
}

} // namespace ttlplan::emu
