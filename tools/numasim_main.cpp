// numasim: simulate Linux automatic NUMA balancing on a simulated NUMA machine.
#include "cli/cli.h"

int main(int argc, char** argv) {
    return numasim::cli_main(argc, argv);
}
