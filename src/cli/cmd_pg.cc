// pgrig pg build|list|remove: PostgreSQL built from source under
// PGRIG_HOME/pg (pgbuild/builder.h, docs/pg-build.md).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/parse_args.h"
#include "cluster/cluster.h"
#include "common/interrupt.h"
#include "common/strings.h"
#include "pgbuild/builder.h"

namespace pgrig::cli {
namespace {

constexpr CommandName kPgCommand{"pgrig pg"};

std::string Minutes(double s) {
  const auto total = static_cast<long>(s + 0.5);
  return total < 60 ? fmt::format("{} s", total)
                    : fmt::format("{} min {:02} s", total / 60, total % 60);
}

std::string Megabytes(uint64_t bytes) {
  return fmt::format("{:.0f} MB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace

int RunPg(int argc, char** argv) {
  CLI::App app{
      "PostgreSQL built from source with named flag profiles, under $PGRIG_HOME/pg/NAME\n"
      "(docs/pg-build.md).",
      "pgrig pg"};
  app.require_subcommand(1, 1);
  std::string source, name, profile = "default", cflags;
  std::vector<std::string> configure;
  int jobs = 0;
  bool json = false;
  std::string remove_name;
  auto* build = app.add_subcommand(
      "build",
      "build PostgreSQL from a release tarball or an unpacked source tree (out of tree, make -j\n"
      "by cores, through ccache when installed); nothing is created when a check fails");
  build->add_option("SOURCE", source, "postgresql-X.Y.tar.{gz,bz2,xz} or a source tree")
      ->required();
  build->add_option("--name", name, "the build's name (a directory under $PGRIG_HOME/pg)")
      ->required();
  build
      ->add_option("--profile", profile,
                   "default | distro | native | lse (arm64) | lto | llvm (docs/pg-build.md)")
      ->capture_default_str();
  build->add_option("--cflags", cflags, "added to the profile's CFLAGS");
  build->add_option("--configure", configure,
                    "a configure option added to the profile's (repeat for more)");
  build->add_option("-j,--jobs", jobs, "parallel compile jobs (default: the online CPUs)")
      ->check(CLI::PositiveNumber);
  auto* list = app.add_subcommand(
      "list", "the builds: version, profile, compiler, CFLAGS, configure, atomics, size, time");
  list->add_flag("--json", json, "print the builds' manifests as a JSON array");
  auto* remove = app.add_subcommand("remove", "delete a build and its log");
  remove->add_option("NAME", remove_name, "the build's name")->required();
  if (auto code = ParseArgs(app, argc, argv)) return *code;

  const std::string home = cluster::DefaultHome();
  if (build->parsed()) {
    auto p = pgbuild::ParseProfile(profile);
    if (!p.ok()) return Fail(kPgCommand, p.status());
    pgbuild::BuildSpec spec{
        .source = source,
        .name = name,
        .request = {.profile = *p, .extra_cflags = cflags, .extra_configure = configure},
        .home = home,
        .jobs = jobs};
    InterruptScope interrupts;
    // The first signal stops make (within 5 s) and removes what the build
    // made; a second must not leave make running with nobody to clean up.
    CriticalSection section(fmt::format(
        "pgrig pg build: stopping make and removing the build's files; a third signal leaves "
        "them in {}/.work-{} and {}\n",
        pgbuild::BuildsRoot(home), name, pgbuild::BuildDir(home, name)));
    auto m = pgbuild::BuildPostgres(
        spec, pgbuild::DetectBuildMachine(),
        {.line =
             [](const std::string& l) {
               std::printf("pgrig pg build: %s\n", l.c_str());
               std::fflush(stdout);  // a step can take minutes: show it now, even into a file
             }},
        InterruptScope::flag());
    std::fflush(stdout);
    if (!m.ok()) return Fail(kPgCommand, m.status());
    std::printf(
        "built %s: PostgreSQL %s, profile %s, in %s; %s at %s\n  compiler %s; CFLAGS %s\n  "
        "atomics %s; frame pointers %s\n",
        m->name.c_str(), m->version.c_str(), m->profile.c_str(), Minutes(m->build_seconds).c_str(),
        Megabytes(m->size_bytes).c_str(), pgbuild::BuildDir(home, m->name).c_str(),
        m->compiler.c_str(), m->cflags.empty() ? "(configure's own)" : m->cflags.c_str(),
        m->binary.arm_atomics.c_str(), m->binary.frame_pointers.c_str());
    return kExitOk;
  }
  if (list->parsed()) {
    const std::vector<pgbuild::ListedBuild> builds = pgbuild::ListBuilds(home);
    if (json) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& b : builds) {
        a.push_back(b.manifest ? pgbuild::ManifestToJson(*b.manifest)
                               : nlohmann::json{{"name", b.name}, {"error", b.error}});
      }
      std::printf("%s\n", a.dump(2).c_str());
      return kExitOk;
    }
    if (builds.empty()) {
      std::printf("no builds under %s (pgrig pg build SOURCE --name NAME)\n",
                  pgbuild::BuildsRoot(home).c_str());
      return kExitOk;
    }
    for (const auto& b : builds) {
      if (!b.manifest) {
        std::printf("%s: unreadable: %s\n", b.name.c_str(), b.error.c_str());
        continue;
      }
      const pgbuild::Manifest& m = *b.manifest;
      std::vector<std::string> conf;
      for (const std::string& a : m.configure_args) {
        if (!a.starts_with("--prefix=") && !a.starts_with("CC=")) conf.push_back(a);
      }
      std::printf(
          "%s: PostgreSQL %s, profile %s, %s, built %s in %s\n  compiler %s\n  CFLAGS %s\n  "
          "configure %s\n  atomics %s%s; frame pointers %s\n",
          m.name.c_str(), m.version.c_str(), m.profile.c_str(), Megabytes(m.size_bytes).c_str(),
          m.built_at.c_str(), Minutes(m.build_seconds).c_str(), m.compiler.c_str(),
          m.cflags.empty() ? "(configure's own)" : m.cflags.c_str(),
          conf.empty() ? "(none)" : Join(conf, " ").c_str(), m.binary.arm_atomics.c_str(),
          m.binary.arm_atomics_detail ? (" (" + *m.binary.arm_atomics_detail + ")").c_str() : "",
          m.binary.frame_pointers.c_str());
    }
    return kExitOk;
  }
  if (remove->parsed()) {
    // The build's own cluster (pgrig ... --pg NAME) goes with it, but not
    // while it runs.
    cluster::ClusterEnv env = cluster::ClusterEnv::FromProcess();
    env.pg_bindir.clear();
    std::optional<cluster::Cluster> own;
    if (auto c = cluster::Cluster::Open({.home = home, .env = env, .build = remove_name});
        c.ok() && ::access(c->home().c_str(), F_OK) == 0) {
      if (c->RunningPid()) {
        return Fail(kPgCommand,
                    FailedPrecondition(fmt::format(
                        "build {}'s cluster is running ({}); stop it first: pgrig cluster stop "
                        "--pg {}",
                        remove_name, c->home(), remove_name)));
      }
      own.emplace(std::move(*c));
    }
    Status s = pgbuild::RemoveBuild(home, remove_name);
    if (!s.ok()) return Fail(kPgCommand, s);
    std::string also;
    if (own) {
      Status d = own->Destroy();
      if (!d.ok()) return Fail(kPgCommand, d);
      also = ", and its cluster " + own->home();
    }
    std::printf("removed build %s (%s%s)\n", remove_name.c_str(),
                pgbuild::BuildDir(home, remove_name).c_str(), also.c_str());
    return kExitOk;
  }
  return kExitBadInvocation;
}

}  // namespace pgrig::cli
