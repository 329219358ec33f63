// What the engine calls to let an observer look at the system while a run goes on (the samplers
// and trace writers of src/observe). A sampler reads the system at every tick at or after each
// multiple of its interval and once more when the run ends; it must not change anything, so a
// run gives the same result with or without samplers.
#pragma once

#include "sim/clock.h"

namespace numasim {

struct System;

class Sampler {
  public:
    virtual ~Sampler() = default;
    virtual Nanos interval() const = 0;
    // `sys.now` is the sample time; every CPU has been simulated up to it.
    virtual void sample(const System& sys) = 0;
};

}  // namespace numasim
