# ctest `devices.half_sync_dst_from_the_file`: the planner takes DST's capacity from the device
# description. Writes a copy of ir/devices/wormhole_b0.json whose half-sync counts are 2 tiles
# (16-bit and fp32), plans examples/matmul_mcast_2d.ttl with it and with the shipped file, and
# checks the DST chain: 8 tiles and a 2x2 sub-block in one round with the shipped file; 2 tiles
# and a 2-tile sub-block in two rounds with the copy.
# -DTTLPLAN=... -DDEVICE=<shipped json> -DKERNEL=<.ttl> -DWORK=<scratch dir>
file(MAKE_DIRECTORY ${WORK})
file(READ ${DEVICE} json)
string(JSON json SET "${json}" dst tiles_half_sync 2)
string(JSON json SET "${json}" dst tiles_half_sync_fp32 2)
file(WRITE ${WORK}/half_sync_2.json "${json}")

function(plan_with device_file out_var)
  execute_process(COMMAND ${TTLPLAN} plan ${KERNEL} --device-file ${device_file}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ttlplan plan --device-file ${device_file} exited ${rc}:\n${out}${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(expect text pattern what)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: expected '${pattern}' in:\n${text}")
  endif()
endfunction()

plan_with(${DEVICE} shipped)
expect("${shipped}" "block 2x2 bf16, capacity 8 tiles" "shipped wormhole_b0")
expect("${shipped}" "sub-block 2x2, 1 round," "shipped wormhole_b0")
plan_with(${WORK}/half_sync_2.json halved)
expect("${halved}" "block 2x2 bf16, capacity 2 tiles" "tiles_half_sync 2")
expect("${halved}" "sub-block (1x2|2x1), 2 rounds," "tiles_half_sync 2")
