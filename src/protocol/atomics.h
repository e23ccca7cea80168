/*
 * The atomics layer of the kernel-side protocol (kernel_side.c): six
 * sequentially consistent operations on 32-bit words of the launch context.
 *
 * Natively (the scheduler's unit and stress tests) they are GCC/clang
 * __atomic builtins. In the OpenCL C build they are declarations only: the
 * SPIR targets have no lock-free atomics in clang 14, which would turn the
 * builtins into library calls, so the compiler plugin defines each one as a
 * single seq_cst LLVM atomic instruction when it links the protocol into a
 * kernel (src/compiler/KernelSide.cpp), the instructions the scheduler's
 * std::atomic_ref accesses synchronise with (ck/context.h).
 */
#ifndef CK_PROTOCOL_ATOMICS_H
#define CK_PROTOCOL_ATOMICS_H

#ifdef __OPENCL_C_VERSION__
#define CK_GLOBAL __global
#define CK_PRIVATE __private
#else
#define CK_GLOBAL
#define CK_PRIVATE
#endif

typedef unsigned int ck_word;

#ifdef __OPENCL_C_VERSION__

ck_word __ck_atomic_load(CK_GLOBAL ck_word *word);
void __ck_atomic_store(CK_GLOBAL ck_word *word, ck_word value);
/* These return the value before the operation. */
ck_word __ck_atomic_add(CK_GLOBAL ck_word *word, ck_word amount);
ck_word __ck_atomic_exchange(CK_GLOBAL ck_word *word, ck_word value);
ck_word __ck_atomic_max(CK_GLOBAL ck_word *word, ck_word value);
/* 1 if *word held expected and now holds desired, else 0. */
ck_word __ck_atomic_compare_exchange(CK_GLOBAL ck_word *word, ck_word expected,
                                     ck_word desired);

#else

static inline ck_word
__ck_atomic_load(ck_word *word)
{
   return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

static inline void
__ck_atomic_store(ck_word *word, ck_word value)
{
   __atomic_store_n(word, value, __ATOMIC_SEQ_CST);
}

static inline ck_word
__ck_atomic_add(ck_word *word, ck_word amount)
{
   return __atomic_fetch_add(word, amount, __ATOMIC_SEQ_CST);
}

static inline ck_word
__ck_atomic_exchange(ck_word *word, ck_word value)
{
   return __atomic_exchange_n(word, value, __ATOMIC_SEQ_CST);
}

static inline ck_word
__ck_atomic_max(ck_word *word, ck_word value)
{
   ck_word old = __atomic_load_n(word, __ATOMIC_SEQ_CST);
   while (old < value &&
          !__atomic_compare_exchange_n(word, &old, value, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST))
      ;
   return old;
}

static inline ck_word
__ck_atomic_compare_exchange(ck_word *word, ck_word expected, ck_word desired)
{
   return __atomic_compare_exchange_n(word, &expected, desired, 0, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST);
}

#endif

#endif
