#include "cli/target.h"

#include <cstdio>

namespace pgrig::cli {

Result<Target> ResolveTarget(const pg::ConnectionParams& named, bool quiet) {
  Target t;
  if (named.NamesAServer()) {
    t.params = named;
    return t;
  }
  PGRIG_ASSIGN_OR_RETURN(cluster::Cluster c, cluster::Cluster::Open({}));
  PGRIG_ASSIGN_OR_RETURN(cluster::StartAction action, c.Start());
  if (!quiet && action != cluster::StartAction::kAlreadyRunning) {
    std::fprintf(stderr, "pgrig: %s the embedded cluster in %s\n",
                 action == cluster::StartAction::kInitializedAndStarted ? "created and started"
                                                                        : "started",
                 c.home().c_str());
  }
  t.params = c.Params();
  t.params.application_name = named.application_name;
  t.embedded = true;
  t.cluster.emplace(std::move(c));
  return t;
}

}  // namespace pgrig::cli
