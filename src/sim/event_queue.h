// The engine's event queue: a binary heap ordered by (time, insertion sequence), so two events
// at the same nanosecond always run in the order they were scheduled. That total order is what
// makes a run byte-for-byte reproducible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "sim/clock.h"

namespace numasim {

struct Event {
    Nanos when = 0;
    uint64_t seq = 0;
    uint32_t kind = 0;  // interpreted by the owner of the queue
    int32_t a = 0;      // e.g. a CPU or task index
    int64_t b = 0;      // e.g. a generation number that lets stale events be ignored
};

class EventQueue {
  public:
    void push(Nanos when, uint32_t kind, int32_t a = 0, int64_t b = 0) {
        heap_.push(Event{when, next_seq_++, kind, a, b});
    }
    bool empty() const { return heap_.empty(); }
    const Event& top() const { return heap_.top(); }
    Event pop() {
        Event e = heap_.top();
        heap_.pop();
        return e;
    }
    size_t size() const { return heap_.size(); }

  private:
    struct Later {
        bool operator()(const Event& x, const Event& y) const {
            return x.when != y.when ? x.when > y.when : x.seq > y.seq;
        }
    };
    std::priority_queue<Event, std::vector<Event>, Later> heap_;
    uint64_t next_seq_ = 0;
};

}  // namespace numasim
