#!/usr/bin/env python3
# Writes tests/pto/plan_errors.ttl: the kernels --target pto refuses or cannot fit, one `// -----`
# case each, with a CHECK line whose file:line:col this script finds in the text it writes (the
# line of the construct, or of the ttl.kernel for a planner rejection) instead of copying it from
# a run. Run it after changing a case; the lit test then checks ttlplan against those lines.
import os
aliases='''#dram = #ttl.layout<dram, interleaved>
!tile = !ttcore.tile<32x32, bf16>
!mat  = tensor<256x256xbf16, #dram>
!rd   = !ttl.transfer_handle<read>
!wr   = !ttl.transfer_handle<write>
'''
def kernel(name, cbs, reader, compute, writer, grid='[1, 1]'):
    return f'''module {{
  ttl.kernel @{name}(%a: !mat, %b: !mat, %c: !mat) attributes {{grid = {grid}}} {{
{cbs}    ttl.datamovement_thread {{
      %c0 = arith.constant 0 : index
{reader}    }}
    ttl.compute_thread {{
{compute}    }}
    ttl.datamovement_thread {{
      %c0 = arith.constant 0 : index
{writer}    }}
  }}
}}
'''
def load(cb, ty, blk, v):
    return f'''      %v{v} = ttl.cb_reserve {cb} : {ty} -> {blk}
      %s{v} = ttl.tensor_slice %a[%c0, %c0] : !mat -> {blk}
      %x{v} = ttl.copy %s{v}, %v{v} : ({blk}, {blk}) -> !rd
      ttl.wait %x{v} : !rd
      ttl.cb_push {cb} : {ty}
'''
def store(cb, ty, blk):
    return f'''      %o = ttl.cb_wait {cb} : {ty} -> {blk}
      %sc = ttl.tensor_slice %c[%c0, %c0] : !mat -> {blk}
      %xc = ttl.copy %o, %sc : ({blk}, {blk}) -> !wr
      ttl.wait %xc : !wr
      ttl.cb_pop {cb} : {ty}
'''
def eltwise(name, ins, ty, blk, body, result, outty=None, cbdefs=None):
    """ins: input CB names; body: compute lines using %w0.. views; result stored into %cbc."""
    outty = outty or ty
    cbs = ''.join(f'    {c} = ttl.create_cb : {ty}\n' for c in ins) + f'    %cbc = ttl.create_cb : {outty}\n'
    if cbdefs: cbs = cbdefs
    reader = ''.join(load(c, ty, blk, i) for i, c in enumerate(ins))
    compute = ''.join(f'      %w{i} = ttl.cb_wait {c} : {ty} -> {blk}\n' for i, c in enumerate(ins))
    compute += f'      %o = ttl.cb_reserve %cbc : {outty} -> {blk}\n' + body
    compute += f'      ttl.store {result}, %o : {blk}\n      ttl.cb_push %cbc : {outty}\n'
    compute += ''.join(f'      ttl.cb_pop {c} : {ty}\n' for c in ins)
    return kernel(name, cbs, reader, compute, store('%cbc', outty, blk))

cases = []
B11 = 'tensor<1x1x!tile>'
T11 = '!ttl.cb<[1, 1], !tile, 2>'
cases.append(('''// ttl.sin has no pto-isa instruction yet (`ttlplan ops` lists each op's).''',
              eltwise('sin', ['%cba'], T11, B11, f'      %g = ttl.sin %w0 : {B11}\n', '%g'),
              '%g = ttl.sin', 12, 'error: ttl.sin has no pto-isa instruction in ttlplan yet'))
cases.append(('''// A column reduction (dims [0]): only row reductions (TROWSUM/TROWMAX) are lowered.''',
              eltwise('colsum', ['%cba'], T11, B11,
                      f'      %r = ttl.reduce_sum %w0 {{dims = [0]}} : {B11} -> {B11}\n'
                      f'      %g = ttl.bcast %r {{dims = [0]}} : {B11} -> {B11}\n', '%g'),
              '%r = ttl.reduce_sum', 12, 'error: --target pto: ttl.reduce_sum over dims [0]: the pto target lowers row reductions (dims [1], TROWSUM/TROWMAX) only'))
cases.append(('''// A row reduction's value (one element per row) stored as it is: no lowering for it yet.''',
              eltwise('rowmax', ['%cba'], T11, B11,
                      f'      %r = ttl.reduce_max %w0 {{dims = [1]}} : {B11} -> {B11}\n', '%r'),
              'ttl.store %r', 7, "error: --target pto: a row reduction's value (one element per row) is stored"))
cases.append(('''// A broadcast of element (0, 0): pto-isa expands one dimension at a time.''',
              eltwise('scalar', ['%cba', '%cbb'], T11, B11,
                      f'      %e = ttl.bcast %w1 {{dims = [0, 1]}} : {B11} -> {B11}\n'
                      f'      %g = ttl.mul %w0, %e : {B11}\n', '%g'),
              '%e = ttl.bcast', 12, 'error: --target pto: ttl.bcast of element (0, 0) (dims [0, 1]) is not lowered for pto yet'))
bfp = '!ttl.cb<[1, 1], !ttcore.tile<32x32, bfp8_b>, 2>'
bblk = 'tensor<1x1x!ttcore.tile<32x32, bfp8_b>>'
cases.append(('''// bfp8_b is a Tenstorrent block-float format: pto-isa tiles do not hold it.''',
              eltwise('bfp', ['%cba'], bfp, bblk, f'      %e = ttl.exp %w0 : {bblk}\n', '%e'),
              '%cba = ttl.create_cb', 12, 'error: CB %cba: bfp8_b is a Tenstorrent block-float format'))
f32 = '!ttl.cb<[8, 8], !ttcore.tile<32x32, f32>, 1>'
fblk = 'tensor<8x8x!ttcore.tile<32x32, f32>>'
cases.append(('''// One 8x8 block of f32 tiles is 64 * 32 * 32 * 4 = 262,144 B: more than A2/A3's 188,416 B of
// UB for tiles (192 KiB less pto-isa's 8 KiB window).''',
              eltwise('oversize', ['%cba'], f32, fblk, f'      %e = ttl.exp %w0 : {fblk}\n', '%e'),
              '%cba = ttl.create_cb', 12, 'error: CB %cba: one block of 262,144 B is larger than the 188,416 B of ub on ascend_a2a3; use a smaller block'))
T24 = '!ttl.cb<[2, 4], !ttcore.tile<32x32, f32>, 2>'
B24 = 'tensor<2x4x!ttcore.tile<32x32, f32>>'
cases.append(('''// Three CBs of two 2x4 f32 blocks (8 * 32 * 32 * 4 = 32,768 B each): 196,608 B of UB, 8,192
// more than the 188,416 A2/A3 has for tiles. In f32 the sum needs no temporary (it is computed
// straight into %cbc's slot). One block fewer of %cba (32,768 B) closes the gap.''',
              eltwise('short', ['%cba', '%cbb'], T24, B24, f'      %s = ttl.add %w0, %w1 : {B24}\n', '%s'),
              'ttl.kernel @short', 3, 'error: @short: the ub tiles need 196,608 B and ascend_a2a3 has 188,416 B of ub for tiles (short by 8,192 B): %cba ({LOC}, 2 slots of 32,768 B), %cbb ({LOC}, 2 slots of 32,768 B), %cbc ({LOC}, 2 slots of 32,768 B); give %cba block count 1 instead of 2 (saves 32,768 B)'))
T3 = '!ttl.cb<[1, 1], !tile, 3>'
cases.append(('''// Three inputs of three blocks: 9 ready flags from MTE2 to V, and a pipe pair has 8 event ids.''',
              eltwise('flags', ['%cba', '%cbb', '%cbd'], T3, B11,
                      f'      %s = ttl.add %w0, %w1 : {B11}\n      %t = ttl.add %s, %w2 : {B11}\n', '%t'),
              'ttl.kernel @flags', 3, 'error: @flags: the flags between pipes MTE2->V need 9 event ids, and ascend_a2a3 has 8 per pipe pair (a flag per slot each way): %cba ({LOC}, 3 slots of 2,048 B), %cbb ({LOC}, 3 slots of 2,048 B), %cbd ({LOC}, 3 slots of 2,048 B); give %cba block count 2 instead of 3'))
# multicast
pipe_reader = load('%cba', T11, B11, 0).replace('      ttl.cb_push', '      %p = ttl.create_pipe src(0, 0) dst(1, 0) : !ttl.pipe\n      ttl.cb_push')
cases.append(('''// A pipe is multicast between cores, which PTO has no meaning for.''',
              kernel('mcast', f'    %cba = ttl.create_cb : {T11}\n    %cbc = ttl.create_cb : {T11}\n',
                     pipe_reader,
                     f'      %w0 = ttl.cb_wait %cba : {T11} -> {B11}\n      %o = ttl.cb_reserve %cbc : {T11} -> {B11}\n      %e = ttl.exp %w0 : {B11}\n      ttl.store %e, %o : {B11}\n      ttl.cb_push %cbc : {T11}\n      ttl.cb_pop %cba : {T11}\n',
                     store('%cbc', T11, B11), grid='[1, 2]'),
              '%p = ttl.create_pipe', 12, 'error: ttl.create_pipe: multicast has no meaning under --target pto'))
sem_cbs = f'    %cba = ttl.create_cb : {T11}\n    %cbc = ttl.create_cb : {T11}\n    %done = ttl.create_semaphore {{init = 0}} : !ttl.semaphore\n'
cases.append(('''// Semaphores signal between cores; set_flag/wait_flag order one core's pipes.''',
              kernel('sem', sem_cbs, load('%cba', T11, B11, 0),
                     f'      %w0 = ttl.cb_wait %cba : {T11} -> {B11}\n      %o = ttl.cb_reserve %cbc : {T11} -> {B11}\n      %e = ttl.exp %w0 : {B11}\n      ttl.store %e, %o : {B11}\n      ttl.cb_push %cbc : {T11}\n      ttl.cb_pop %cba : {T11}\n',
                     store('%cbc', T11, B11)),
              '%done = ttl.create_semaphore', 13, 'error: ttl.create_semaphore: semaphores between cores have no meaning under --target pto'))

out = ['// RUN: not ttlplan plan --target pto --split-input-file %s 2>&1 | FileCheck %s',
       "// What --target pto refuses, each a located error naming the construct and the limit (nothing is",
       "// planned), and kernels that do not fit, with the cheapest fix. Sizes are worked out per case;",
       "// each CHECK's line number is where the construct is (tests/pto/gen_errors.py wrote the file and",
       "// checks that).",
       '']
text = '\n'.join(out)
for i, (comment, body, marker, col, msg) in enumerate(cases):
    if i: text += '// -----\n'
    placeholder = '// CHECK: @@\n'
    element = 'bfp8_b' if 'bfp8_b>' in body else 'f32' if 'f32>' in body else 'bf16'
    text += comment + '\n' + placeholder + aliases.replace('256x256xbf16', '256x256x' + element) + body
    # the line of the marker (1-based) in the whole file
    lines = text.split('\n')
    target = max(k for k, l in enumerate(lines) if marker in l) + 1
    kernel_line = max(k for k, l in enumerate(lines) if 'ttl.kernel' in l) + 1
    if marker.startswith('ttl.kernel'): target = kernel_line
    # locations of CBs for {LOC}
    def cbloc(name):
        k = max(j for j, l in enumerate(lines) if f'{name} = ttl.create_cb' in l)
        return f'plan_errors.ttl:{k+1}:12'
    m = msg
    for name in ['%cba', '%cbb', '%cbd', '%cbc']:
        if f'{name} ({{LOC}}' in m:
            m = m.replace(f'{name} ({{LOC}}', f'{name} ({{{{.*}}}}{cbloc(name)}')
    check = f'// CHECK: plan_errors.ttl:{target}:{col}: {m}\n'
    text = text.replace(placeholder, check, 1)
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'plan_errors.ttl'), 'w').write(text)
