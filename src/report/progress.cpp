#include "report/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace numasim {

namespace {

// Redraw at most this often: a sweep can finish thousands of runs per second and each redraw
// is a terminal write.
constexpr double kMinRedrawSeconds = 0.1;

double steady_seconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void write_stderr(std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
}

}  // namespace

ProgressReporter::ProgressReporter(std::size_t total)
    : ProgressReporter(total, steady_seconds, write_stderr, isatty(STDERR_FILENO) == 1) {}

ProgressReporter::ProgressReporter(std::size_t total, Clock clock, Sink sink, bool enabled)
    : total_(total), clock_(std::move(clock)), sink_(std::move(sink)), enabled_(enabled) {
    start_ = clock_();
}

ProgressReporter::~ProgressReporter() {
    finish();
}

void ProgressReporter::advance(std::size_t n) {
    std::lock_guard lock(mutex_);
    done_ += n;
    draw_locked(done_ >= total_);
}

void ProgressReporter::finish() {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (!enabled_) return;
    draw_locked(true);
    sink_("\n");
}

std::size_t ProgressReporter::done() const {
    std::lock_guard lock(mutex_);
    return done_;
}

void ProgressReporter::draw_locked(bool force) {
    if (!enabled_ || (finished_ && !force)) return;
    const double now = clock_();
    if (!force && last_draw_ >= 0 && now - last_draw_ < kMinRedrawSeconds) return;
    last_draw_ = now;
    std::string line = format_line(done_, total_, now - start_);
    const std::size_t width = line.size();
    // Blank out the tail of a previously longer line before returning the cursor.
    if (width < last_width_) line.append(last_width_ - width, ' ');
    last_width_ = width;
    sink_("\r" + line);
}

std::string ProgressReporter::format_duration(double seconds) {
    if (!(seconds >= 0) || std::isinf(seconds)) return "--";
    const auto total = static_cast<long long>(std::llround(seconds));
    const long long h = total / 3600;
    const long long m = (total / 60) % 60;
    const long long s = total % 60;
    if (h > 0) return fmt::format("{}h{:02}m{:02}s", h, m, s);
    if (m > 0) return fmt::format("{}m{:02}s", m, s);
    return fmt::format("{}s", s);
}

std::string ProgressReporter::format_line(std::size_t done, std::size_t total,
                                          double elapsed_seconds) {
    std::string eta = "--";
    if (done >= total) {
        eta = "0s";
    } else if (done > 0) {
        // Assumes the remaining runs cost as much on average as the finished ones.
        const double per_run = elapsed_seconds / static_cast<double>(done);
        eta = format_duration(per_run * static_cast<double>(total - done));
    }
    return fmt::format("runs {}/{}, ETA {}", done, total, eta);
}

}  // namespace numasim
