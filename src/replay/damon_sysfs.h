// A copy of DAMON's sysfs tried_regions directory
// (/sys/kernel/mm/damon/admin/kdamonds/<N>/contexts/<N>/schemes/<N>/tried_regions/, filled when
// `update_schemes_tried_regions` is written to kdamonds/<N>/state; the kernel's
// Documentation/admin-guide/mm/damon/usage.rst): subdirectories 0, 1, ... each with the files
// start, end, nr_accesses and age of one region. It is one window of one target; the caller
// gives its intervals. A `cp -r` of the directory is read the same way.
#pragma once

#include <string>

#include "replay/damon_snapshot.h"

namespace numasim {

void read_damon_sysfs(const std::string& dir, int64_t sample_us, int64_t aggr_us,
                      const SnapshotHandler& on_snapshot);

}  // namespace numasim
