// The record file `damo record --output_type json` writes (damo's _damo_records.py,
// write_json(): a JSON list of DamonRecord.to_kvpairs(raw=True) objects, one per monitoring
// target, each with its intervals and its list of snapshots of regions). Read with a SAX parser,
// one snapshot at a time.
#pragma once

#include "replay/damon_snapshot.h"
#include "replay/profile_input.h"

namespace numasim {

// Calls `on_snapshot` for each snapshot in file order; throws InputError naming the record,
// snapshot or region (and the line) for anything that is not such a file.
void read_damo_json(ProfileInput& in, const SnapshotHandler& on_snapshot);

}  // namespace numasim
