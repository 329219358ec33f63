// numasim: simulate Linux automatic NUMA balancing on a simulated NUMA machine.
#include "cli/cli.h"
#include "cli/host_heap.h"

int main(int argc, char** argv) {
    numasim::back_heap_with_huge_pages();
    return numasim::cli_main(argc, argv);
}
