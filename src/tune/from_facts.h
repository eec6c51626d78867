// Tuner inputs from the facts `pgrig facts` collects (src/host), so the
// rules see the same machine the facts report: container-aware memory and
// CPUs, SMT, storage class, page and huge page sizes, the server's version
// and, on Arm, whether its binary uses LSE atomics.
//
// A fact that is unknown leaves the TuneInputs default and adds a note that
// says which default was assumed and which option overrides it.  Pure
// function of its arguments; thread-safe.
#ifndef PGRIG_TUNE_FROM_FACTS_H_
#define PGRIG_TUNE_FROM_FACTS_H_

#include <optional>
#include <string>
#include <vector>

#include "host/host_facts.h"
#include "host/server_facts.h"
#include "tune/rules.h"

namespace pgrig::tune {

TuneInputs InputsFromFacts(const host::HostFacts& host, const host::ServerFacts* server,
                           std::vector<std::string>* notes);

}  // namespace pgrig::tune

#endif  // PGRIG_TUNE_FROM_FACTS_H_
