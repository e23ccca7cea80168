// Work-groups of one thread that run the kernel side of the protocol
// (src/protocol/kernel_side.c, built natively) on host threads, so that the
// scheduler can be tested, against the code that kernels execute, without
// a device. This file does on the host what the compiler plugin does in a
// kernel (src/compiler/Lowering.cpp) around those calls: it packs and
// unpacks transmit records, publishes forks, leaves when told to and records
// the return.
#pragma once

#include "ck/context.h"
#include "kernel_side.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace ck::host {

// A launch context buffer of ck_context_bytes(max_groups) bytes.
class Context {
public:
   explicit Context(uint32_t max_groups) : words_(ck_context_bytes(max_groups) / 4) {}

   uint32_t *data() { return words_.data(); }

   std::atomic_ref<uint32_t> word(ck_context_word word) { return std::atomic_ref(words_[word]); }

   std::atomic_ref<uint32_t> slot_word(uint32_t group, unsigned byte_offset)
   {
      return std::atomic_ref(words_[CK_HEADER_WORDS + (group * CK_SLOT_BYTES + byte_offset) / 4]);
   }

private:
   std::vector<uint32_t> words_;
};

// One work-group of a cooperative kernel. The protocol functions that
// return "leave" (killed, or stuck at a barrier) make it leave: it then
// returns from its kernel without recording a return, as a kernel does.
class WorkGroup {
public:
   WorkGroup(Context &context, uint32_t id) : context_(context), id_(id) {}
   WorkGroup(const WorkGroup &) = delete;
   WorkGroup &operator=(const WorkGroup &) = delete;
   // A work-group that did not leave returns from the kernel function.
   ~WorkGroup()
   {
      if (!left_)
         __ck_record_return(ctx(), id_);
   }

   uint32_t id() const { return id_; }
   // get_num_groups(0): M.
   uint32_t num_groups() { return __ck_active_groups(ctx()); }
   // 0 for a work-group that starts at the top of the kernel, else the
   // resume id of the fork point where it joins.
   uint32_t resume_point() { return context_.slot_word(id_, CK_SLOT_RESUME_POINT).load(); }

   template <typename Record>
   Record transmitted()
   {
      check_record<Record>();
      uint32_t words[sizeof(Record) / 4];
      for (unsigned i = 0; i < sizeof(Record) / 4; ++i)
         words[i] = context_.slot_word(id_, CK_SLOT_TRANSMIT + 4 * i).load();
      Record record;
      std::memcpy(&record, words, sizeof(Record));
      return record;
   }

   // True: the scheduler killed this work-group, which must return now.
   bool offer_kill() { return leave_if(__ck_offer_kill(ctx(), id_)); }

   // Returns k, the number of work-groups forked; they start at resume_id
   // with `transmit` as their record.
   template <typename Record>
   uint32_t request_fork(uint32_t resume_id, const Record &transmit)
   {
      uint32_t first;
      const uint32_t count = __ck_fork_reserve(ctx(), &first);
      publish(first, count, resume_id, transmit);
      return count;
   }

   // True: the barrier can never complete, and the work-group must return.
   // `call` and `call_line` name the barrier call, as the compiler does.
   bool global_barrier(uint32_t call = site, uint32_t call_line = line)
   {
      return leave_if(__ck_global_barrier(ctx(), id_, call, call_line));
   }

   // True: killed (or stuck). Work-groups forked here start at resume_id
   // and call join_resizing_barrier() with the same call.
   template <typename Record>
   bool resizing_global_barrier(uint32_t resume_id, const Record &transmit, uint32_t call = site,
                                uint32_t call_line = line)
   {
      uint32_t first, forks;
      const uint32_t decision = __ck_resize_gather(ctx(), id_, call, call_line, &first, &forks);
      publish(first, forks, resume_id, transmit);
      if (decision == CK_RESIZE_STUCK)
         return leave_if(true);
      return decision != 0 && join_resizing_barrier(call, call_line);
   }

   // The rest of a resizing barrier, from where forked work-groups join it.
   bool join_resizing_barrier(uint32_t call = site, uint32_t call_line = line)
   {
      return leave_if(__ck_resize_join(ctx(), id_, call, call_line));
   }

   // The kill phase alone (kernel_side.h).
   bool resize_kills() { return leave_if(__ck_resize_kills(ctx(), id_)); }

   // The barrier call that CK_STUCK_BARRIER and CK_STUCK_LINE name.
   static constexpr uint32_t site = 1, line = 0;

private:
   template <typename Record>
   static void check_record()
   {
      static_assert(std::is_trivially_copyable_v<Record> && sizeof(Record) % 4 == 0 &&
                    sizeof(Record) <= CK_TRANSMIT_MAX_BYTES);
   }

   template <typename Record>
   void publish(uint32_t first, uint32_t count, uint32_t resume_id, const Record &transmit)
   {
      check_record<Record>();
      if (count == 0)
         return;
      uint32_t words[sizeof(Record) / 4];
      std::memcpy(words, &transmit, sizeof(Record));
      for (unsigned i = 0; i < sizeof(Record) / 4; ++i)
         context_.slot_word(first, CK_SLOT_TRANSMIT + 4 * i).store(words[i]);
      __ck_fork_publish(ctx(), first, count, resume_id, sizeof(Record) / 4);
   }

   bool leave_if(ck_word leave)
   {
      if (leave)
         left_ = true;
      return leave != 0;
   }

   ck_word *ctx() { return context_.data(); }

   Context &context_;
   uint32_t id_;
   bool left_ = false;
};

} // namespace ck::host
