#include "ttlplan/report/Svg.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

namespace ttlplan::report {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      // Control characters are not allowed in XML 1.0 (a TTL file name could hold one).
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
        out += '?';
      else
        out += c;
    }
  }
  return out;
}

std::string thousands(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string bytesText(double bytes) {
  if (bytes < 1024) return fmt::format("{:.0f} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024);
  return fmt::format("{:.2f} MiB", bytes / (1024 * 1024));
}

std::string timeText(double ns) {
  if (ns < 1000) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.2f} us", ns / 1e3);
  return fmt::format("{:.2f} ms", ns / 1e6);
}

std::string heatColour(double t) {
  // Light yellow -> orange -> dark red, interpolated in RGB between four stops.
  static constexpr std::array<std::array<int, 3>, 4> kStops = {
      {{255, 247, 188}, {254, 196, 79}, {236, 112, 20}, {153, 52, 4}}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * double(kStops.size() - 1);
  size_t i = std::min(size_t(t), kStops.size() - 2);
  double f = t - double(i);
  int rgb[3];
  for (int c = 0; c < 3; ++c)
    rgb[c] = int(std::lround(kStops[i][c] + f * (kStops[i + 1][c] - kStops[i][c])));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

std::string categoryColour(int index) {
  // Okabe-Ito's colour-blind-safe palette, then a grey.
  static constexpr std::array<const char*, 8> kColours = {
      "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#999999"};
  return kColours[size_t(index < 0 ? 0 : index) % kColours.size()];
}

std::string textColourOn(const std::string& background) {
  if (background.size() != 7 || background[0] != '#') return "#000";
  auto channel = [&](size_t at) { return std::stoi(background.substr(at, 2), nullptr, 16); };
  double luminance =
      0.299 * channel(1) + 0.587 * channel(3) + 0.114 * channel(5); // ITU-R BT.601 weights
  return luminance < 140 ? "#fff" : "#000";
}

std::string hatchPattern(const std::string& id) {
  return fmt::format(R"(<defs><pattern id="{}" width="8" height="8" )"
                     R"~(patternUnits="userSpaceOnUse" patternTransform="rotate(45)">)~"
                     R"(<rect width="8" height="8" fill="#f4f4f4"/>)"
                     R"(<line x1="0" y1="0" x2="0" y2="8" stroke="#bbb" stroke-width="3"/>)"
                     R"(</pattern></defs>)",
                     id);
}

Svg::Svg(double width, double height, std::string cssClass, std::string_view title,
         std::string_view description)
    : width_(width), height_(height), class_(std::move(cssClass)) {
  body_ += fmt::format("<title>{}</title><desc>{}</desc>", escape(title), escape(description));
}

void Svg::rect(double x, double y, double w, double h, const std::string& fill,
               const std::string& cssClass, std::string_view tooltip, const std::string& extra) {
  body_ += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}")", x,
                       y, std::max(0.0, w), std::max(0.0, h), fill);
  closeShape("rect", cssClass, tooltip, extra);
}

void Svg::text(double x, double y, std::string_view text, const std::string& anchor,
               const std::string& cssClass, double size) {
  body_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="{}" font-size="{}")", x, y,
                       anchor, size);
  if (!cssClass.empty()) body_ += fmt::format(R"( class="{}")", cssClass);
  body_ += fmt::format(">{}</text>", escape(text));
}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& stroke, double width,
               const std::string& extra) {
  body_ += fmt::format(
      R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{}")", x1,
      y1, x2, y2, stroke, width);
  if (!extra.empty()) body_ += " " + extra;
  body_ += "/>";
}

void Svg::circle(double cx, double cy, double r, const std::string& fill,
                 const std::string& cssClass, std::string_view tooltip, const std::string& extra) {
  body_ += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="{}")", cx, cy, r, fill);
  closeShape("circle", cssClass, tooltip, extra);
}

void Svg::closeShape(const char* tag, const std::string& cssClass, std::string_view tooltip,
                     const std::string& extra) {
  if (!cssClass.empty()) body_ += fmt::format(R"( class="{}")", cssClass);
  if (!extra.empty()) body_ += " " + extra;
  if (tooltip.empty())
    body_ += "/>";
  else
    body_ += fmt::format("><title>{}</title></{}>", escape(tooltip), tag);
}

void Svg::raw(const std::string& markup) {
  body_ += markup;
}

std::string Svg::str() const {
  return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="{}" width="{:.0f}" )"
                     R"(height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" role="img" )"
                     R"(font-family="DejaVu Sans, Helvetica, Arial, sans-serif">{}</svg>)",
                     class_, width_, height_, width_, height_, body_);
}

} // namespace ttlplan::report
