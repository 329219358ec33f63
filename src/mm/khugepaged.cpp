#include "mm/khugepaged.h"

#include "kernel/system.h"
#include "mm/lru_add.h"

namespace numasim {

void khugepaged_enter(System& sys, Mm& mm) {
    if (mm.khugepaged_listed) return;
    mm.khugepaged_listed = true;
    ++sys.khugepaged_mms;
}

void khugepaged_exit(System& sys, Mm& mm) {
    if (!mm.khugepaged_listed) return;
    mm.khugepaged_listed = false;
    --sys.khugepaged_mms;
}

void khugepaged_tick(System& sys) {
    // An mm joining an empty list wakes khugepaged at once (the next pass is due from then);
    // one joining while it sleeps waits for the sleep to end, as in khugepaged_wait_work().
    if (sys.khugepaged_mms == 0 || sys.now < sys.khugepaged_next_pass) return;
    lru_add_drain_all(sys);  // khugepaged_do_scan() begins with it
    sys.khugepaged_next_pass = sys.now + KHUGEPAGED_SCAN_SLEEP_NS;
}

}  // namespace numasim
