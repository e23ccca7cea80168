; A call that cannot be inlined into a cooperative kernel is a build error
; that names the call: its callee's builtins would stay un-lowered. LLVM 14
; does not inline through an operand bundle it does not know; the call to
; @forks without one is inlined, and only the bundled call is reported.
; RUN: not %ck-lower -disable-output %s 2>&1 | FileCheck %s --implicit-check-not=error
;
; Written by hand (no OpenCL C source has an operand bundle).

; CHECK: in function 'bundled': error: the call to 'kills' cannot be inlined into kernel 'bundled' (unsupported operand bundle); a cooperative kernel's callees must all be inlined [inlining]

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

define spir_func void @kills() #0 {
entry:
  call spir_func void @offer_kill() #1
  ret void
}

define spir_func void @forks() #0 {
entry:
  call spir_func void @request_fork() #1
  ret void
}

define spir_kernel void @bundled(i32 addrspace(1)* %out) #0 !kernel_arg_addr_space !0 !kernel_arg_access_qual !1 !kernel_arg_type !2 !kernel_arg_base_type !2 !kernel_arg_type_qual !3 {
entry:
  call spir_func void @forks() #1
  call spir_func void @kills() #1 [ "ck-uninlinable"() ]
  ret void
}

declare spir_func void @offer_kill() #1
declare spir_func void @request_fork() #1

attributes #0 = { convergent nounwind }
attributes #1 = { convergent }

!0 = !{i32 1}
!1 = !{!"none"}
!2 = !{!"int*"}
!3 = !{!""}
