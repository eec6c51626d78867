#include "cli/target.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace pgrig::cli {

Result<cluster::StartAction> StartEmbedded(cluster::Cluster& c, bool quiet) {
  PGRIG_ASSIGN_OR_RETURN(cluster::StartAction action, c.Start());
  if (action != cluster::StartAction::kInitializedAndStarted) return action;
  const char* env = std::getenv("PGRIG_EMBEDDED_PROFILE");
  std::string name = env && *env ? env : "benchmark";
  if (name == "none") return action;
  auto profile = tune::ParseProfile(name);
  if (!profile.ok()) {
    return profile.status().WithContext("PGRIG_EMBEDDED_PROFILE=" + name);
  }
  Status s = ApplyTuneProfileToEmbedded(c, *profile);
  if (!s.ok()) {
    return s.WithContext("the embedded cluster was created but tuning it with the " + name +
                         " profile failed (PostgreSQL's defaults are still in place; "
                         "PGRIG_EMBEDDED_PROFILE=none skips tuning)");
  }
  if (!quiet) {
    std::fprintf(stderr,
                 "pgrig: tuned the new embedded cluster with the %s profile%s; see \"pgrig tune "
                 "--all\"\n",
                 name.c_str(),
                 *profile == tune::Profile::kBenchmark
                     ? " (it trades durability for speed: synchronous_commit=off, "
                       "wal_level=minimal; fine for throwaway benchmark data only)"
                     : "");
  }
  return action;
}

Result<Target> ResolveTarget(const pg::ConnectionParams& named, bool quiet) {
  Target t;
  if (named.NamesAServer()) {
    t.params = named;
    return t;
  }
  PGRIG_ASSIGN_OR_RETURN(cluster::Cluster c, cluster::Cluster::Open({}));
  PGRIG_ASSIGN_OR_RETURN(cluster::StartAction action, StartEmbedded(c, quiet));
  if (!quiet && action != cluster::StartAction::kAlreadyRunning) {
    std::fprintf(
        stderr, "pgrig: %s the embedded cluster in %s\n",
        action == cluster::StartAction::kInitializedAndStarted ? "created and started" : "started",
        c.home().c_str());
  }
  t.params = c.Params();
  t.params.application_name = named.application_name;
  t.embedded = true;
  t.cluster.emplace(std::move(c));
  return t;
}

}  // namespace pgrig::cli
