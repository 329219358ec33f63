#include "engine/task_traffic.h"

#include "cost/access.h"
#include "sched/task.h"

namespace numasim {

void note_task_traffic(Task& p, std::span<const AccessStream> streams, double bytes) {
    if (bytes <= 0) return;
    for (const AccessStream& s : streams) {
        // A task's phases touch a handful of regions: a linear search finds them.
        Task::RegionTraffic* t = nullptr;
        for (Task::RegionTraffic& r : p.traffic)
            if (r.region == s.region) t = &r;
        if (!t) t = &p.traffic.emplace_back(Task::RegionTraffic{s.region, 0, 0});
        const double sb = bytes * s.share;
        t->stores += sb * s.write_fraction;
        t->loads += sb * (1 - s.write_fraction);
    }
}

}  // namespace numasim
