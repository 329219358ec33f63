// The simplest TaskProgram: a fixed list of phases, run once in order, then exit. Tests,
// benchmarks and small hand-built scenarios use it to drive tasks without a workload model.
#pragma once

#include <utility>
#include <vector>

#include "engine/program.h"

namespace numasim {

class PhaseList : public TaskProgram {
  public:
    explicit PhaseList(std::vector<Phase> phases) : phases_(std::move(phases)) {}
    bool next_phase(Task&, Phase& out) override {
        if (next_ >= phases_.size()) return false;
        out = phases_[next_++];
        return true;
    }

  private:
    std::vector<Phase> phases_;
    size_t next_ = 0;
};

}  // namespace numasim
