#include "experiment/job_cluster.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "config/input_error.h"
#include "experiment/pool.h"

#if NUMASIM_HAVE_MPI
#include <mpi.h>
#endif

namespace numasim {

namespace {

// One finished job: its result, or the message of what it threw. In this process the exception
// itself is kept too, so that an input error (a disk that is full) stays one and is not reported
// as an internal error; a message from another rank has no exception.
struct Outcome {
    size_t id = 0;
    bool ok = true;
    std::string bytes;
    std::exception_ptr error = nullptr;
};

Outcome execute(const JobCluster::Job& job, size_t id) {
    try {
        return {id, true, job(id)};
    } catch (const std::exception& e) {
        return {id, false, e.what(), std::current_exception()};
    }
}

// Whether an MPI launcher started this process, from the environment it sets (Open MPI's
// mpirun, PMIx and PMI launchers such as srun and MPICH's hydra).
bool launched_by_mpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(v)) return true;
    return false;
}

// How many ranks the launcher started, where it says (1 if it does not).
[[maybe_unused]] int launcher_size() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
        if (const char* s = std::getenv(v)) return std::max(1, std::atoi(s));
    return 1;
}

// Collects outcomes; failures are kept and the lowest id's is thrown at the end.
class Deliveries {
  public:
    explicit Deliveries(const JobCluster::Done& done) : done_(done) {}
    // Never throws: on the root an exception here would leave the other ranks waiting.
    void deliver(Outcome o) {
        if (o.ok) {
            try {
                done_(o.id, std::move(o.bytes));
                return;
            } catch (const std::exception&) {
                o.error = std::current_exception();
            }
        }
        if (!o.error) o.error = std::make_exception_ptr(std::runtime_error(o.bytes));
        failed_.emplace(o.id, o.error);
        any_failed_ = true;
    }
    // Safe from any thread: no job should start once one failed.
    bool failed() const { return any_failed_; }
    std::exception_ptr error() const { return failed_.empty() ? nullptr : failed_.begin()->second; }
    void rethrow() const {
        if (auto e = error()) std::rethrow_exception(e);
    }

  private:
    const JobCluster::Done& done_;
    std::map<size_t, std::exception_ptr> failed_;
    std::atomic<bool> any_failed_{false};
};

void run_local(const std::vector<size_t>& ids, int workers, const JobCluster::Job& job,
               const JobCluster::Done& done, const std::atomic<bool>* stop) {
    std::mutex mu;
    Deliveries d(done);
    run_jobs(
        ids.size(), workers,
        [&](size_t k) {
            if (d.failed()) return;  // as on the MPI root: nothing starts after a failure
            Outcome o = execute(job, ids[k]);
            std::lock_guard<std::mutex> g(mu);
            d.deliver(std::move(o));
        },
        {}, stop);
    d.rethrow();
}

#if NUMASIM_HAVE_MPI

constexpr int kTagRequest = 1;   // worker rank -> root: a result (or none) and "give me a job"
constexpr int kTagJob = 2;       // root -> worker rank: a job id, or kNoJob
constexpr int kTagFinished = 3;  // worker rank -> root: all its threads are done
constexpr uint64_t kNoJob = UINT64_MAX;
// How often the root's main thread looks for messages when nothing happens.
constexpr auto kPollInterval = std::chrono::milliseconds(1);

// A request: the finished job's id (kNoJob for none), its status, then its bytes.
std::string encode(const Outcome* o) {
    std::string s(sizeof(uint64_t) + 1, '\0');
    const uint64_t id = o ? o->id : kNoJob;
    std::memcpy(s.data(), &id, sizeof id);
    s[sizeof id] = o && o->ok ? 1 : 0;
    if (o) s += o->bytes;
    return s;
}

std::optional<Outcome> decode(const std::string& s) {
    uint64_t id;
    std::memcpy(&id, s.data(), sizeof id);
    if (id == kNoJob) return std::nullopt;
    return Outcome{id, s[sizeof id] == 1, s.substr(sizeof id + 1)};
}

// The jobs the root handed out and has not received back, for JobCluster::running_jobs: fixed
// storage of lock-free atomics, which a signal handler may read; jobs beyond its 256 slots (ranks
// times workers) go unnamed. A slot is free at rank kFree, being filled at kClaimed.
constexpr int kFree = -1, kClaimed = -2;
struct RunningSlot {
    std::atomic<int> rank{kFree};
    std::atomic<uint64_t> job{0};
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "read from a signal handler");
RunningSlot g_running[256];

void note_started(int rank, uint64_t job) {
    for (RunningSlot& s : g_running) {
        int free = kFree;
        if (!s.rank.compare_exchange_strong(free, kClaimed)) continue;
        s.job = job;
        s.rank = rank;
        return;
    }
}

void note_finished(uint64_t job) {
    for (RunningSlot& s : g_running)
        if (s.rank >= 0 && s.job == job) {
            s.rank = kFree;
            return;
        }
}

// Returns the lowest failed job's error, if any.
std::exception_ptr run_root(int ranks, const std::vector<size_t>& ids, int workers,
                            const JobCluster::Job& job, const JobCluster::Done& done,
                            const std::atomic<bool>* stop) {
    std::mutex take_mu;
    size_t next = 0;
    Deliveries d(done);
    auto take = [&](int rank) -> uint64_t {
        std::lock_guard<std::mutex> g(take_mu);
        if ((stop && stop->load()) || d.failed() || next >= ids.size()) return kNoJob;
        note_started(rank, ids[next]);
        return ids[next++];
    };
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Outcome> finished;
    int running = std::max(workers, 1);
    std::vector<std::thread> threads;
    for (int w = 0; w < running; ++w)
        threads.emplace_back([&] {
            for (uint64_t k = take(0); k != kNoJob; k = take(0)) {
                Outcome o = execute(job, k);
                std::lock_guard<std::mutex> g(mu);
                finished.push_back(std::move(o));
                cv.notify_one();
            }
            std::lock_guard<std::mutex> g(mu);
            --running;
            cv.notify_one();
        });
    int finished_ranks = 0;
    while (true) {
        std::deque<Outcome> batch;
        bool local_done;
        {
            std::unique_lock<std::mutex> l(mu);
            cv.wait_for(l, kPollInterval, [&] { return !finished.empty(); });
            batch.swap(finished);
            local_done = running == 0;
        }
        for (auto& o : batch) {
            note_finished(o.id);
            d.deliver(std::move(o));
        }
        int flag = 0;
        MPI_Status st;
        while (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS &&
               flag) {
            int count = 0;
            MPI_Get_count(&st, MPI_BYTE, &count);
            std::string buf(static_cast<size_t>(count), '\0');
            MPI_Recv(buf.data(), count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (st.MPI_TAG == kTagFinished) {
                ++finished_ranks;
                continue;
            }
            if (auto o = decode(buf)) {
                note_finished(o->id);
                d.deliver(std::move(*o));
            }
            const uint64_t reply = take(st.MPI_SOURCE);
            MPI_Send(&reply, 1, MPI_UINT64_T, st.MPI_SOURCE, kTagJob, MPI_COMM_WORLD);
        }
        if (local_done && finished_ranks == ranks - 1) {
            std::lock_guard<std::mutex> g(mu);
            if (finished.empty()) break;
        }
    }
    for (auto& t : threads)
        t.join();
    return d.error();
}

void run_worker_rank(int workers, const JobCluster::Job& job) {
    std::mutex mu;
    std::condition_variable jobs_cv, results_cv;
    std::deque<uint64_t> jobs;
    std::deque<Outcome> results;
    bool quit = false;
    const int threads_n = std::max(workers, 1);
    std::vector<std::thread> threads;
    for (int w = 0; w < threads_n; ++w)
        threads.emplace_back([&] {
            while (true) {
                uint64_t k;
                {
                    std::unique_lock<std::mutex> l(mu);
                    jobs_cv.wait(l, [&] { return !jobs.empty() || quit; });
                    if (jobs.empty()) return;
                    k = jobs.front();
                    jobs.pop_front();
                }
                Outcome o = execute(job, k);
                std::lock_guard<std::mutex> g(mu);
                results.push_back(std::move(o));
                results_cv.notify_one();
            }
        });
    // Asks the root for a job, handing in a finished one; true if a job came back.
    auto request = [&](const Outcome* o) {
        const std::string msg = encode(o);
        MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_BYTE, 0, kTagRequest,
                 MPI_COMM_WORLD);
        uint64_t reply = kNoJob;
        MPI_Recv(&reply, 1, MPI_UINT64_T, 0, kTagJob, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (reply == kNoJob) return false;
        std::lock_guard<std::mutex> g(mu);
        jobs.push_back(reply);
        jobs_cv.notify_one();
        return true;
    };
    int active = 0;
    for (int w = 0; w < threads_n && request(nullptr); ++w)
        ++active;
    while (active > 0) {
        Outcome o;
        {
            std::unique_lock<std::mutex> l(mu);
            results_cv.wait(l, [&] { return !results.empty(); });
            o = std::move(results.front());
            results.pop_front();
        }
        if (!request(&o)) --active;
    }
    {
        std::lock_guard<std::mutex> g(mu);
        quit = true;
    }
    jobs_cv.notify_all();
    for (auto& t : threads)
        t.join();
    MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagFinished, MPI_COMM_WORLD);
}

#endif

}  // namespace

JobCluster::JobCluster() {
#if NUMASIM_HAVE_MPI
    if (launched_by_mpi()) {
        int provided = 0;
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
        mpi_ = true;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
    }
#else
    if (launched_by_mpi() && launcher_size() > 1)
        throw InputError("mpirun", "",
                         "this numasim was built without MPI (cmake -DNUMASIM_MPI=ON), so every "
                         "rank would run the whole sweep");
#endif
}

JobCluster::~JobCluster() {
#if NUMASIM_HAVE_MPI
    if (mpi_) MPI_Finalize();
#endif
}

bool JobCluster::root_agrees(bool go) {
#if NUMASIM_HAVE_MPI
    if (size_ > 1) {
        int flag = go ? 1 : 0;
        MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
        return flag != 0;
    }
#endif
    return go;
}

size_t JobCluster::running_jobs(RunningJob* out, size_t max) {
    size_t n = 0;
#if NUMASIM_HAVE_MPI
    for (const RunningSlot& s : g_running) {
        const int rank = s.rank;
        if (rank >= 0 && n < max) out[n++] = {rank, static_cast<size_t>(s.job.load())};
    }
#else
    (void)out;
    (void)max;
#endif
    return n;
}

bool JobCluster::all_agree(bool go) {
#if NUMASIM_HAVE_MPI
    if (size_ > 1) {
        int mine = go ? 1 : 0, all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        return all != 0;
    }
#endif
    return go;
}

void JobCluster::run(const std::vector<size_t>& ids, int workers, const Job& job, const Done& done,
                     const std::atomic<bool>* stop) {
#if NUMASIM_HAVE_MPI
    if (size_ > 1) {
        // An exception in the middle of the exchange would leave the other ranks waiting for
        // a message that never comes: end the whole MPI job instead.
        std::exception_ptr failure;
        try {
            if (root())
                failure = run_root(size_, ids, workers, job, done, stop);
            else
                run_worker_rank(workers, job);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "numasim: rank %d: %s\n", rank_, e.what());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (failure) std::rethrow_exception(failure);
        return;
    }
#endif
    run_local(ids, workers, job, done, stop);
}

}  // namespace numasim
