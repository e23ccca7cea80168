; The code between a coroutine's suspend points moves into functions of its
; own before CoroSplit (llvmpipe, ck_outline_suspend_free_regions): each
; phase of @chunk, a loop with a branch inside, becomes one call. The
; suspend points, the coroutine intrinsics and the allocas stay. The
; register %acc, live across the suspend points, is promoted first, so it
; crosses the calls as a value, not as an address. Split and run, @chunk
; gives the same result with the outlining and without it.
; A coroutine under the default thresholds' 512 blocks is left alone.
;
; RUN: opt -load-pass-plugin %ck_plugin '-passes=ck-outline-suspend-free<min-coroutine-blocks=0;min-region-blocks=2>' -S %s | FileCheck %s
; RUN: opt -load-pass-plugin %ck_plugin -passes=ck-outline-suspend-free -S %s | FileCheck %s --check-prefix=SMALL
; RUN: %coro-input %s | %coro-split | lli | FileCheck %s --check-prefix=RESULT
; RUN: %coro-input %s | opt -load-pass-plugin %ck_plugin '-passes=ck-outline-suspend-free<min-coroutine-blocks=0;min-region-blocks=2>' | %coro-split | lli | FileCheck %s --check-prefix=RESULT

; CHECK-LABEL: define i8* @chunk(
; CHECK-NOT: alloca i32{{$}}
; CHECK: call i8* @llvm.coro.begin(
; CHECK-NEXT: br label %[[PHASE1:.*]]
; CHECK: [[PHASE1]]:
; CHECK: call void @chunk.suspend_free(i32 %n, i32* %[[SUM:.*]])
; CHECK-NEXT: %[[SUM_VALUE:.*]] = load i32, i32* %[[SUM]]
; CHECK: call i8 @llvm.coro.suspend(token none, i1 false)
; CHECK: call void @chunk.suspend_free.1(i32 %[[SUM_VALUE]], i32 %n, i32* %[[MIXED:.*]])
; CHECK-NEXT: %[[MIXED_VALUE:.*]] = load i32, i32* %[[MIXED]]
; CHECK: call i8 @llvm.coro.suspend(token none, i1 false)
; CHECK: add i32 %[[MIXED_VALUE]], %[[SUM_VALUE]]
; CHECK: call i8 @llvm.coro.suspend(token none, i1 true)
; CHECK: call i1 @llvm.coro.end(

; CHECK-LABEL: define internal void @chunk.suspend_free(
; CHECK-NOT: llvm.coro
; CHECK: shl i32
; CHECK-NOT: llvm.coro
; CHECK: ret void
; CHECK-LABEL: define internal void @chunk.suspend_free.1(
; CHECK-NOT: llvm.coro
; CHECK: mul i32
; CHECK-NOT: llvm.coro
; CHECK: ret void

; SMALL-NOT: suspend_free

; RESULT: result 3962

define i8* @chunk(i32 %n, i32* %out) "coroutine.presplit"="0" {
entry:
  %acc = alloca i32
  %id = call token @llvm.coro.id(i32 0, i8* null, i8* null, i8* null)
  %size = call i32 @llvm.coro.size.i32()
  %mem = call i8* @malloc(i32 %size)
  %hdl = call i8* @llvm.coro.begin(token %id, i8* %mem)
  store i32 0, i32* %acc
  br label %sum.head

; phase 1: acc = sum over i < n of (i odd ? i : 2 * i)
sum.head:
  %i = phi i32 [ 0, %entry ], [ %i.next, %sum.latch ]
  %more = icmp slt i32 %i, %n
  br i1 %more, label %sum.body, label %sum.done

sum.body:
  %odd = and i32 %i, 1
  %is.odd = icmp ne i32 %odd, 0
  br i1 %is.odd, label %sum.odd, label %sum.even

sum.odd:
  br label %sum.latch

sum.even:
  %twice = shl i32 %i, 1
  br label %sum.latch

sum.latch:
  %term = phi i32 [ %i, %sum.odd ], [ %twice, %sum.even ]
  %a = load i32, i32* %acc
  %a.next = add i32 %a, %term
  store i32 %a.next, i32* %acc
  %i.next = add i32 %i, 1
  br label %sum.head

sum.done:
  %sum = load i32, i32* %acc
  br label %barrier1

barrier1:
  %s1 = call i8 @llvm.coro.suspend(token none, i1 false)
  switch i8 %s1, label %suspend [i8 0, label %mix.head
                                 i8 1, label %cleanup]

; phase 2: acc = acc * 3 + j for each j < n
mix.head:
  %j = phi i32 [ 0, %barrier1 ], [ %j.next, %mix.body ]
  %more.j = icmp slt i32 %j, %n
  br i1 %more.j, label %mix.body, label %mix.done

mix.body:
  %b = load i32, i32* %acc
  %b3 = mul i32 %b, 3
  %b.next = add i32 %b3, %j
  store i32 %b.next, i32* %acc
  %j.next = add i32 %j, 1
  br label %mix.head

mix.done:
  br label %barrier2

barrier2:
  %s2 = call i8 @llvm.coro.suspend(token none, i1 false)
  switch i8 %s2, label %suspend [i8 0, label %store
                                 i8 1, label %cleanup]

; phase 3: the sum of phase 1, from before both suspend points
store:
  %c = load i32, i32* %acc
  %result = add i32 %c, %sum
  store i32 %result, i32* %out
  br label %final

final:
  %s3 = call i8 @llvm.coro.suspend(token none, i1 true)
  switch i8 %s3, label %suspend [i8 0, label %trap
                                 i8 1, label %cleanup]

trap:
  unreachable

cleanup:
  %free = call i8* @llvm.coro.free(token %id, i8* %hdl)
  call void @free(i8* %free)
  br label %suspend

suspend:
  %unused = call i1 @llvm.coro.end(i8* %hdl, i1 false)
  ret i8* %hdl
}

; sum = 16 (0 + 1 + 4 + 3 + 8), then 16 -> 48 -> 145 -> 437 -> 1314 -> 3946,
; and 3946 + 16
@result = global i32 0
@format = private constant [11 x i8] c"result %d\0A\00"

define i32 @main() {
  %hdl = call i8* @chunk(i32 5, i32* @result)
  call void @llvm.coro.resume(i8* %hdl)
  call void @llvm.coro.resume(i8* %hdl)
  call void @llvm.coro.destroy(i8* %hdl)
  %r = load i32, i32* @result
  %f = getelementptr [11 x i8], [11 x i8]* @format, i64 0, i64 0
  call i32 (i8*, ...) @printf(i8* %f, i32 %r)
  ret i32 0
}

declare token @llvm.coro.id(i32, i8*, i8*, i8*)
declare i32 @llvm.coro.size.i32()
declare i8* @llvm.coro.begin(token, i8*)
declare i8 @llvm.coro.suspend(token, i1)
declare i8* @llvm.coro.free(token, i8*)
declare i1 @llvm.coro.end(i8*, i1)
declare void @llvm.coro.resume(i8*)
declare void @llvm.coro.destroy(i8*)
declare i8* @malloc(i32)
declare void @free(i8*)
declare i32 @printf(i8*, ...)
