#include "experiment/pool.h"

#include "experiment/cpu_budget.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace numasim {

void run_jobs(size_t n, int workers, const std::function<void(size_t)>& job,
              const std::function<void()>& done, const std::atomic<bool>* stop) {
    std::atomic<size_t> next{0};
    std::mutex mu;
    std::exception_ptr error;
    auto worker = [&] {
        for (size_t k = next++; k < n && !(stop && stop->load()); k = next++) {
            try {
                job(k);
            } catch (...) {
                std::lock_guard<std::mutex> g(mu);
                if (!error) error = std::current_exception();
            }
            if (done) done();
        }
    };
    const size_t threads =
        std::clamp<size_t>(static_cast<size_t>(std::max(workers, 1)), 1, std::max<size_t>(n, 1));
    std::vector<std::thread> pool;
    for (size_t w = 1; w < threads; ++w)
        pool.emplace_back(worker);
    worker();
    for (auto& t : pool)
        t.join();
    if (error) std::rethrow_exception(error);
}

int default_workers() {
    return available_cpus();
}

}  // namespace numasim
