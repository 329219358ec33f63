// The kernel ring buffer's pages, as `trace-cmd record` copies them from
// /sys/kernel/tracing/per_cpu/cpuN/trace_pipe_raw into trace.dat and libtraceevent's kbuffer reads
// them back. A page is
//   u64 timestamp    the time its first event is relative to
//   u64 commit       the bytes of event data that follow (local_t: 8 bytes on a 64-bit kernel)
//   data[page - 16]  events, each a 32-bit header word {type_len:5, time_delta:27} (little
//                    endian: type_len in the low bits) and its entry:
//                      type_len 1..28   an entry of type_len * 4 bytes follows the header;
//                      type_len 0       a 32-bit length (the entry's bytes + 4), then the entry;
//                      type_len 30      a time extend: the delta's bits above 27 follow in a
//                                       32-bit word, the event after it has delta 0.
// Each event's time_delta is relative to the event before it on the page. Events never straddle
// two pages; the bytes after `commit` are zero. One RingBufferPages is one CPU's buffer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace numasim {

class RingBufferPages {
  public:
    // Receives each finished page: exactly `page_size` bytes.
    using PageSink = std::function<void(std::string_view page)>;

    RingBufferPages(uint32_t page_size, PageSink sink);
    // Appends one entry (a multiple of 4 bytes: the common fields and the event's fields) at
    // `ts`, which must not be before the previous entry's.
    void add(uint64_t ts, std::string_view entry);
    // Hands over the partly filled page, if any.
    void flush();
    uint64_t pages() const { return pages_; }

  private:
    void start_page(uint64_t ts);
    void put32(uint32_t v);

    uint32_t page_size_;
    PageSink sink_;
    std::string page_;
    size_t used_ = 0;  // bytes of event data on the open page
    bool open_ = false;
    bool started_ = false;  // an entry was added: last_ts_ holds its time
    uint64_t last_ts_ = 0;
    uint64_t pages_ = 0;
};

// Bytes in little-endian order, as the trace.dat of an x86-64 machine holds every number.
void put_le(std::string& out, uint64_t v, size_t bytes);

}  // namespace numasim
