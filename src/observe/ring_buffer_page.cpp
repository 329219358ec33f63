#include "observe/ring_buffer_page.h"

#include <stdexcept>

namespace numasim {

namespace {

// kernel/trace/ring_buffer.c and include/linux/ring_buffer.h (the header_event file lists them).
constexpr size_t kPageHeaderSize = 16;    // u64 timestamp + local_t commit (BUF_PAGE_HDR_SIZE)
constexpr size_t kCommitOffset = 8;       // the commit field's offset in the page header
constexpr uint32_t kTypeLenMaxData = 28;  // RINGBUF_TYPE_DATA_TYPE_LEN_MAX
constexpr uint32_t kTypeTimeExtend = 30;  // RINGBUF_TYPE_TIME_EXTEND
constexpr unsigned kTypeLenBits = 5;      // type_len:5
constexpr unsigned kTsShift = 27;         // TS_SHIFT: time_delta:27
constexpr uint64_t kMaxDelta = (uint64_t{1} << kTsShift) - 1;
constexpr size_t kEventHeaderSize = 4;  // the {type_len, time_delta} word
constexpr size_t kLengthSize = 4;       // array[0]: the length of an entry over 28 words
constexpr size_t kTimeExtendSize = 8;   // a time extend: its header word and array[0]
constexpr size_t kAlignment = 4;        // RB_ALIGNMENT: entries are whole 32-bit words
constexpr size_t kMaxSmallData = kTypeLenMaxData * kAlignment;  // RB_MAX_SMALL_DATA

// Overwrites `bytes` bytes of `buf` at `at`, little endian.
void store_le(std::string& buf, size_t at, uint64_t v, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i)
        buf[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

}  // namespace

void put_le(std::string& out, uint64_t v, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i)
        out += static_cast<char>((v >> (8 * i)) & 0xff);
}

RingBufferPages::RingBufferPages(uint32_t page_size, PageSink sink)
    : page_size_(page_size), sink_(std::move(sink)) {}

void RingBufferPages::put32(uint32_t v) {
    store_le(page_, kPageHeaderSize + used_, v, 4);
    used_ += 4;
}

void RingBufferPages::start_page(uint64_t ts) {
    page_.assign(page_size_, '\0');
    store_le(page_, 0, ts, 8);
    used_ = 0;
    last_ts_ = ts;
    open_ = true;
    started_ = true;
}

void RingBufferPages::add(uint64_t ts, std::string_view entry) {
    if (entry.size() % kAlignment != 0 || entry.empty())
        throw std::logic_error("ring buffer entry not a whole number of 32-bit words");
    if (started_ && ts < last_ts_) throw std::logic_error("ring buffer events out of time order");
    const bool small = entry.size() <= kMaxSmallData;
    const size_t event_size = kEventHeaderSize + (small ? 0 : kLengthSize) + entry.size();
    if (kPageHeaderSize + event_size > page_size_)
        throw std::logic_error("ring buffer entry larger than a page");
    if (open_) {
        const size_t extend = ts - last_ts_ > kMaxDelta ? kTimeExtendSize : 0;
        if (kPageHeaderSize + used_ + extend + event_size > page_size_) flush();
    }
    if (!open_) start_page(ts);
    uint64_t delta = ts - last_ts_;
    if (delta > kMaxDelta) {
        put32(kTypeTimeExtend | static_cast<uint32_t>((delta & kMaxDelta) << kTypeLenBits));
        put32(static_cast<uint32_t>(delta >> kTsShift));
        delta = 0;
    }
    const uint32_t type_len = small ? static_cast<uint32_t>(entry.size() / kAlignment) : 0;
    put32(type_len | static_cast<uint32_t>(delta << kTypeLenBits));
    if (!small) put32(static_cast<uint32_t>(entry.size() + kLengthSize));
    page_.replace(kPageHeaderSize + used_, entry.size(), entry);
    used_ += entry.size();
    last_ts_ = ts;
}

void RingBufferPages::flush() {
    if (!open_) return;
    store_le(page_, kCommitOffset, used_, 8);
    sink_(page_);
    ++pages_;
    open_ = false;
}

}  // namespace numasim
