// `numasim oracle`'s report: what ran where (guest machine, kernel, accelerator, knobs, notes),
// the mmtests compare table of the figures, the verdicts, and the real kernel's time series
// with --sample; or all of it, with every boot and model run, as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "experiment/oracle.h"

namespace numasim {

std::string oracle_text(const OracleResult& r);
nlohmann::json oracle_json(const OracleResult& r);

// The sentence every oracle report carries under TCG.
extern const char* const kTcgTimingNote;

}  // namespace numasim
