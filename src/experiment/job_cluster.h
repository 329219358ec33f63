// Jobs spread over every process of an MPI job (`mpirun -n N numasim sweep ...`) and over each
// process's worker threads; without MPI, over this process's threads alone.
//
// Distribution is dynamic: the root (rank 0) hands out one job at a time to whichever worker
// thread of whichever rank is free, because sweep cases differ in cost by 100x and a static
// split would leave ranks idle behind the slowest. Each job's result is a string (a run as
// JSON) that travels to the root, which alone sees every result and writes the output. The
// root's main thread only hands out jobs and receives results (MPI_THREAD_FUNNELED); its worker
// threads run jobs like every other rank's.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace numasim {

class JobCluster {
  public:
    // Joins the MPI job when this process was started by an MPI launcher (mpirun, srun) and
    // numasim was built with MPI (NUMASIM_MPI); a launcher with several ranks and no MPI in the
    // build is an error, since every rank would run everything. Otherwise a cluster of one.
    JobCluster();
    ~JobCluster();
    JobCluster(const JobCluster&) = delete;
    JobCluster& operator=(const JobCluster&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    bool root() const { return rank_ == 0; }

    // Whether the root says go: `go` of the root, on every rank (other ranks' `go` is
    // ignored). Collective: every rank calls it, or none.
    bool root_agrees(bool go);
    // Whether every rank says go. Collective as root_agrees.
    bool all_agree(bool go);

    // A job handed out by the root of an MPI job and not yet returned.
    struct RunningJob {
        int rank;
        size_t id;
    };
    // The root's jobs under way, as many as fit in `out`; async-signal-safe, so that a handler
    // can say which jobs a sweep that mpirun ends (as it does when a rank dies) has lost.
    static size_t running_jobs(RunningJob* out, size_t max);

    using Job = std::function<std::string(size_t id)>;
    using Done = std::function<void(size_t id, std::string result)>;

    // Runs the jobs `ids` (the root's list; other ranks' is ignored) on `workers` threads per
    // rank. On the root, `done` receives every result, one call at a time; other ranks return
    // when the root has no more work. Once `*stop` is true (root) no job starts; running ones
    // finish and are delivered. If jobs failed, the root throws the error of the lowest id
    // after every delivery.
    void run(const std::vector<size_t>& ids, int workers, const Job& job, const Done& done,
             const std::atomic<bool>* stop);

  private:
    int rank_ = 0, size_ = 1;
    bool mpi_ = false;
};

}  // namespace numasim
