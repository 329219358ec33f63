// "runs done/total, ETA" progress line for long sweeps, redrawn in place on stderr.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace numasim {

class ProgressReporter {
  public:
    using Clock = std::function<double()>;               // seconds, monotonic
    using Sink = std::function<void(std::string_view)>;  // where the text goes

    // Writes to stderr, enabled only when stderr is a terminal (so logs and pipes stay clean).
    explicit ProgressReporter(std::size_t total);
    // Injectable clock and sink for tests; `enabled` replaces the isatty() decision.
    ProgressReporter(std::size_t total, Clock clock, Sink sink, bool enabled);
    ~ProgressReporter();

    ProgressReporter(const ProgressReporter&) = delete;
    ProgressReporter& operator=(const ProgressReporter&) = delete;

    // Record `n` finished runs; safe to call from any worker thread.
    void advance(std::size_t n = 1);
    // Draw the final state and end the line (idempotent; also done by the destructor).
    void finish();

    std::size_t done() const;

    // "runs 3/10, ETA 1m05s" (ETA "--" before the first run finishes).
    static std::string format_line(std::size_t done, std::size_t total, double elapsed_seconds);
    static std::string format_duration(double seconds);

  private:
    void draw_locked(bool force);

    mutable std::mutex mutex_;
    std::size_t total_;
    std::size_t done_ = 0;
    Clock clock_;
    Sink sink_;
    bool enabled_;
    bool finished_ = false;
    double start_ = 0;
    double last_draw_ = -1;
    std::size_t last_width_ = 0;
};

}  // namespace numasim
