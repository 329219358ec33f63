// numad's command-line options that bear on placement, as a scenario's [policy.numad] keys
// (docs/placement-policies.md, "numad"). Defaults and ranges are numad.c's (version 20150602;
// `-m` is accepted from 20160428 on).
#pragma once

namespace numasim {

class TomlTable;

// numad.c: MIN_INTERVAL 5, MAX_INTERVAL 15 (seconds), DEFAULT_UTILIZATION_PERCENT 85,
// DEFAULT_MEMLOCALITY_PERCENT 90, DEFAULT_HTT_PERCENT 20; keep_interleaved_memory 0.
struct NumadOptions {
    int min_interval = 5;           // -i MIN:MAX, seconds between passes that moved something
    int max_interval = 15;          // ... and that moved nothing
    int target_utilization = 85;    // -u, percent (10..130)
    int target_memlocality = 90;    // -m, percent of memory that must be local (50..100)
    int htt_percent = 20;           // -t, a hyperthread sibling's worth in percent (0..100)
    bool keep_interleaved = false;  // -K 1: leave processes with interleaved memory alone
};

// Reads the [policy.numad] table (null: numad's defaults); an unknown key or a value numad
// would refuse is an input error naming the key.
NumadOptions read_numad_options(const TomlTable* t);

}  // namespace numasim
