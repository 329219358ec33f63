// The one worker pool: iterations of a run, (variant, iteration) pairs of a comparison, and the
// experiments of a validation all go through it. Each job writes its own result slot, so the
// output never depends on how many workers ran or in which order jobs finished.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>

namespace numasim {

// Runs job(0) .. job(n - 1) on up to `workers` threads (the calling thread is one of them; with
// one worker the jobs run in order on it). `done` is called after each job, from the thread that
// ran it. The first exception a job throws is rethrown once every thread has stopped. Once
// `*stop` is true no further job starts (running ones finish).
void run_jobs(size_t n, int workers, const std::function<void(size_t)>& job,
              const std::function<void()>& done = {}, const std::atomic<bool>* stop = nullptr);

// One worker per CPU this process may use: its affinity mask, capped by its cgroup's CPU quota
// (experiment/cpu_budget.h). The default of every command's -j.
int default_workers();

}  // namespace numasim
