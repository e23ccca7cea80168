; Lowering for a driver that dispatches every work-group at once (zink,
; ck-lower<dispatched>): at the top of the kernel, every thread reads the
; discovery poll (word 21); where it is 0 the work-group keeps the
; hardware's id and spends no barrier. Otherwise local thread 0 calls
; __ck_discover(context, hardware id, work-groups dispatched, &ticket) and
; broadcasts ticket + 1, or 0, on which every thread leaves by ck.exit
; before anything else. The
; program's get_group_id(0) and get_global_id(0) then count in the launch's
; id (get_global_id: id * local size + local id + offset), and so does the
; work-group id that the protocol calls take; get_num_groups(0) is M as
; always. The scheduled lowering (llvmpipe) is unchanged: none of this.
; covers: 15-dispatched-discovery
; RUN: %ck-dispatch-lower -S %s | FileCheck %s
; RUN: %ck-lower -S %s | FileCheck %s --check-prefix=SCHEDULED
; RUN: %ck-dispatch-compile %s -o %t.bc
; RUN: %llvm-spirv %t.bc -o %t.spv
; RUN: spirv-val %t.spv
;
; Written after clang-14 -cc1 -triple spir64-unknown-unknown -O0 -emit-llvm
;   -cl-std=CL1.2 -finclude-default-header -fgnu89-inline
; of this source, after the declarations of the cooperative-kernel builtins:
;
; kernel void disc(global uint *out) {
;   out[get_global_id(0)] = get_group_id(0);
;   global_barrier();
;   out[get_global_id(0)] += get_num_groups(0);
; }

; ModuleID = 'discovery.cl'
source_filename = "discovery.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

; Function Attrs: convergent noinline norecurse nounwind optnone
define dso_local spir_kernel void @disc(i32 addrspace(1)* noundef %out) #0 !kernel_arg_addr_space !3 !kernel_arg_access_qual !4 !kernel_arg_type !5 !kernel_arg_base_type !5 !kernel_arg_type_qual !6 {
entry:
  %out.addr = alloca i32 addrspace(1)*, align 8
  store i32 addrspace(1)* %out, i32 addrspace(1)** %out.addr, align 8
  %call = call spir_func i64 @_Z12get_group_idj(i32 noundef 0) #3
  %conv = trunc i64 %call to i32
  %0 = load i32 addrspace(1)*, i32 addrspace(1)** %out.addr, align 8
  %call1 = call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #3
  %arrayidx = getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %call1
  store i32 %conv, i32 addrspace(1)* %arrayidx, align 4
  call spir_func void @global_barrier() #4
  %call2 = call spir_func i64 @_Z14get_num_groupsj(i32 noundef 0) #3
  %conv3 = trunc i64 %call2 to i32
  %1 = load i32 addrspace(1)*, i32 addrspace(1)** %out.addr, align 8
  %call4 = call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #3
  %arrayidx5 = getelementptr inbounds i32, i32 addrspace(1)* %1, i64 %call4
  %2 = load i32, i32 addrspace(1)* %arrayidx5, align 4
  %add = add i32 %2, %conv3
  store i32 %add, i32 addrspace(1)* %arrayidx5, align 4
  ret void
}

; Function Attrs: convergent nounwind readnone willreturn
declare spir_func i64 @_Z12get_group_idj(i32 noundef) #1

; Function Attrs: convergent nounwind readnone willreturn
declare spir_func i64 @_Z13get_global_idj(i32 noundef) #1

; Function Attrs: convergent nounwind readnone willreturn
declare spir_func i64 @_Z14get_num_groupsj(i32 noundef) #1

; Function Attrs: convergent
declare spir_func void @global_barrier() #2

attributes #0 = { convergent noinline norecurse nounwind optnone "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent nounwind readnone willreturn "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { convergent nounwind readnone willreturn }
attributes #4 = { convergent }

!llvm.module.flags = !{!0}
!opencl.ocl.version = !{!1}
!opencl.spir.version = !{!1}
!llvm.ident = !{!2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 1, i32 2}
!2 = !{!"Debian clang version 14.0.6"}
!3 = !{i32 1}
!4 = !{!"none"}
!5 = !{!"uint*"}
!6 = !{!""}

; CHECK-LABEL: define {{.*}}@disc(
; CHECK: entry:
; CHECK: %[[HW:.*]] = call spir_func i64 @_Z12get_group_idj(i32 0)
; CHECK-NEXT: %[[HW32:ck.hardware.group]] = trunc i64 %[[HW]] to i32
; CHECK-NEXT: store i32 %[[HW32]], i32* %ck.launch.group
; CHECK-NEXT: %[[N:.*]] = call spir_func i64 @_Z14get_num_groupsj(i32 0)
; CHECK-NEXT: %ck.dispatched = trunc i64 %[[N]] to i32
; CHECK-NEXT: %[[PP:.*]] = getelementptr i32, i32 addrspace(1)* %__ck_context, i64 21
; CHECK-NEXT: %[[POLL:.*]] = load atomic i32, i32 addrspace(1)* %[[PP]] seq_cst
; CHECK-NEXT: %ck.no.poll = icmp eq i32 %[[POLL]], 0
; CHECK-NEXT: br i1 %ck.no.poll, label %ck.started, label %ck.discover
; CHECK: ck.discover:
; CHECK-NEXT: call spir_func void @_Z7barrierj(i32 3)
; CHECK: ck.thread0{{.*}}:
; CHECK-NEXT: %ck.joined = call spir_func i32 @__ck_discover(i32 addrspace(1)* %__ck_context, i32 %[[HW32]], i32 %ck.dispatched, i32* %ck.ticket)
; CHECK-NEXT: %[[T:.*]] = load i32, i32* %ck.ticket
; CHECK-NEXT: %[[T1:.*]] = add i32 %[[T]], 1
; CHECK-NEXT: %[[J:.*]] = icmp ne i32 %ck.joined, 0
; CHECK-NEXT: %[[A:.*]] = select i1 %[[J]], i32 %[[T1]], i32 0
; CHECK-NEXT: store i32 %[[A]], i32 addrspace(3)* @disc.ck.broadcast
; CHECK: ck.uniform{{.*}}:
; CHECK-NEXT: call spir_func void @_Z7barrierj(i32 3)
; CHECK-NEXT: %[[B:.*]] = load i32, i32 addrspace(3)* @disc.ck.broadcast
; CHECK-NEXT: %ck.not.resident = icmp eq i32 %[[B]], 0
; CHECK-NEXT: br i1 %ck.not.resident, label %ck.exit, label %[[ALIVE:.*]]
; CHECK: [[ALIVE]]:
; CHECK-NEXT: %[[ID:.*]] = sub i32 %[[B]], 1
; CHECK-NEXT: store i32 %[[ID]], i32* %ck.launch.group
; CHECK-NEXT: br label %ck.started
; M is read after the poll closed.
; CHECK: ck.started:
; CHECK-NEXT: call spir_func i32 @__ck_active_groups(
; get_group_id(0), then get_global_id(0), in the launch's id.
; CHECK: %[[G:.*]] = load i32, i32* %ck.launch.group
; CHECK-NEXT: %[[G64:.*]] = zext i32 %[[G]] to i64
; CHECK-NEXT: %conv = trunc i64 %[[G64]] to i32
; CHECK: %[[L:.*]] = load i32, i32* %ck.launch.group
; CHECK-NEXT: %[[L64:.*]] = zext i32 %[[L]] to i64
; CHECK-NEXT: %[[LID:.*]] = call spir_func i64 @_Z12get_local_idj(i32 0)
; CHECK-NEXT: %[[LSIZE:.*]] = call spir_func i64 @_Z14get_local_sizej(i32 0)
; CHECK-NEXT: %[[BASE:.*]] = mul i64 %[[L64]], %[[LSIZE]]
; CHECK-NEXT: %[[IN:.*]] = add i64 %[[BASE]], %[[LID]]
; CHECK-NEXT: %[[OFF:.*]] = call spir_func i64 @_Z17get_global_offsetj(i32 0)
; CHECK-NEXT: %[[GID:.*]] = add i64 %[[IN]], %[[OFF]]
; CHECK-NEXT: getelementptr inbounds i32, i32 addrspace(1)* %{{.*}}, i64 %[[GID]]
; The protocol's calls take the launch's id too.
; CHECK: ck.thread0:
; CHECK-NEXT: %[[PG:.*]] = load i32, i32* %ck.launch.group
; CHECK-NEXT: call spir_func i32 @__ck_global_barrier(i32 addrspace(1)* %__ck_context, i32 %[[PG]], i32 1, i32 0)
; CHECK-NOT: @_Z13get_global_idj
; CHECK: ck.exit:
; CHECK-NEXT: ret void

; SCHEDULED-LABEL: define {{.*}}@disc(
; SCHEDULED-NOT: __ck_discover
; SCHEDULED-NOT: ck.launch.group
; SCHEDULED: call spir_func i64 @_Z13get_global_idj(i32 {{(noundef )?}}0)
; SCHEDULED: call spir_func i64 @_Z12get_group_idj(i32 0)
; SCHEDULED-NEXT: trunc i64 %{{.*}} to i32
; SCHEDULED-NEXT: call spir_func i32 @__ck_global_barrier(
