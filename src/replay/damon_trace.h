// The damon:damon_aggregated tracepoint as text: what `perf script` prints for a
// `perf record -e damon:damon_aggregated` (and what `damo record --output_type perf_script`
// writes, damo's _damo_records.py write_perf_script()), and what `trace-cmd report` prints. One
// line per region at the end of each aggregation window:
//   kdamond.0  4452 [000] 82877.315633: damon:damon_aggregated: target_id=0 nr_regions=17
//       140731667070976-140731668037632: 0 3      (one line)
// (the kernel's TP_printk in include/trace/events/damon.h: target_id, nr_regions, start-end,
// nr_accesses, age; kernels before 5.17 print no age). The text does not carry the monitoring
// intervals; the caller gives them.
#pragma once

#include "replay/damon_snapshot.h"
#include "replay/profile_input.h"

namespace numasim {

// A window's lines come together; the window ends after nr_regions lines. The kernel writes
// them in one pass at the end of the window (kdamond_reset_aggregated() walks the target's
// regions, which DAMON keeps in address order), each event with its own timestamp: the window's
// end is its first line's time. A line whose region starts below the previous line's end belongs
// to another window (the one before was cut short). The lines' times are not a test: a kdamond
// preempted while it writes (a TCG guest's vCPU descheduled by its host) spreads one window over
// more than a sampling interval. Its start is the end of the target's previous window (the first
// one starts aggr_us before its end).
void read_damon_trace(ProfileInput& in, int64_t sample_us, int64_t aggr_us,
                      const SnapshotHandler& on_snapshot);

}  // namespace numasim
