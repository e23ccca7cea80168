/*
 * The kernel side of the cooperative-kernel protocol: what a work-group does
 * on the launch context (ck/context.h) for each builtin. One definition of
 * each step, in kernel_side.c, built twice:
 *
 *  - as OpenCL C to LLVM bitcode, which the compiler plugin links into every
 *    cooperative kernel and inlines where the builtins were
 *    (src/compiler/KernelSide.cpp);
 *  - natively, for the scheduler's unit and stress tests, which run these
 *    functions on host threads against the real scheduler.
 *
 * Every function is run by one thread of a work-group (local thread 0 in a
 * kernel), and its result is the work-group's decision; the plugin
 * broadcasts it to the other threads. `group` is the work-group's id. The
 * functions that wait call __ck_spin_wait() between polls.
 */
#ifndef CK_PROTOCOL_KERNEL_SIDE_H
#define CK_PROTOCOL_KERNEL_SIDE_H

#include "atomics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called in every loop that polls for another work-group (see
 * CK_SPIN_WAIT_FUNCTION in ck/context.h). */
void __ck_spin_wait(void);

/* The work-group's id in the launch, at the top of the kernel: `group`, the
 * id the driver started it with, or where the work-groups discover which of
 * them are resident together (CK_DISCOVERY_POLL), its ticket of the poll;
 * `dispatched` is how many work-groups the driver dispatched. Returns 1
 * with the id in *id, or 0 if the work-group came after the poll closed:
 * it must leave the kernel at once. */
ck_word __ck_discover(CK_GLOBAL ck_word *ctx, ck_word group, ck_word dispatched,
                      CK_PRIVATE ck_word *id);

/* offer_kill: 1 if the work-group was killed (it must leave the kernel). */
ck_word __ck_offer_kill(CK_GLOBAL ck_word *ctx, ck_word group);

/* request_fork, first half: takes the fork offers and reserves ids
 * [*first, *first + k) for k new work-groups; returns k. */
ck_word __ck_fork_reserve(CK_GLOBAL ck_word *ctx, CK_PRIVATE ck_word *first);

/* request_fork, second half, once the forker has written its transmit
 * record (`record_words` words) into the slot of work-group `first`: copies
 * it into the slots of the other `count - 1` work-groups reserved, writes
 * every slot's resume point `resume_point`, and lets the scheduler start
 * them. */
void __ck_fork_publish(CK_GLOBAL ck_word *ctx, ck_word first, ck_word count,
                       ck_word resume_point, ck_word record_words);

/* global_barrier. `site` and `line` name the barrier call (CK_STUCK_BARRIER,
 * CK_STUCK_LINE); work-groups at different calls never pass together.
 * Returns 1 if the barrier can never complete (a work-group returned, or
 * work-groups reached different barrier calls): the work-group must leave
 * the kernel. */
ck_word __ck_global_barrier(CK_GLOBAL ck_word *ctx, ck_word group, ck_word site,
                            ck_word line);

/* resizing_global_barrier, first half: a global barrier that work-group 0
 * releases after it reserved forks (*first, *forks; 0 forks for the
 * others) and decided the kills. Returns 0 (nothing to kill), 1 (the kill
 * phase runs: call __ck_resize_join) or CK_RESIZE_STUCK (leave the
 * kernel). Work-group 0 publishes the forks it reserved after this. */
#define CK_RESIZE_STUCK 2u
ck_word __ck_resize_gather(CK_GLOBAL ck_word *ctx, ck_word group, ck_word site,
                           ck_word line, CK_PRIVATE ck_word *first,
                           CK_PRIVATE ck_word *forks);

/* resizing_global_barrier, second half, also where forked work-groups join
 * it: if work-group 0 decided to kill, the kill phase (__ck_resize_kills)
 * and a global barrier that completes once only the survivors are active.
 * Returns 1 if the work-group must leave the kernel (killed, or the barrier
 * can never complete). */
ck_word __ck_resize_join(CK_GLOBAL ck_word *ctx, ck_word group, ck_word site,
                         ck_word line);

/* The kill phase: the doomed work-groups [F, M) (never work-group 0) offer
 * to be killed until they are, no kill is requested any more, or one of
 * them stopped un-killed. 1 if killed. */
ck_word __ck_resize_kills(CK_GLOBAL ck_word *ctx, ck_word group);

/* query_kill_count(): the kills the scheduler asks for now. */
ck_word __ck_query_kill_count(CK_GLOBAL ck_word *ctx);

/* get_num_groups(0): M, the number of active work-groups. */
ck_word __ck_active_groups(CK_GLOBAL ck_word *ctx);

/* A return from the kernel function (not a kill). */
void __ck_record_return(CK_GLOBAL ck_word *ctx, ck_word group);

#ifdef __cplusplus
}
#endif

#endif
