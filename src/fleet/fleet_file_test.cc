// The fleet file parser: good files and bad ones (file, line, key, suggestion).
#include "fleet/fleet_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fleet/client_mode.h"

namespace pgrig::fleet {
namespace {

using ::testing::HasSubstr;

constexpr const char* kGood = R"(
[fleet]
plan = "quick"
ssh_config = "keys/ssh_config"
connect_timeout = 5
parallel = false
provision = { command = ["terraform", "apply", "-auto-approve"], timeout = 900 }
teardown = { command = "terraform destroy -auto-approve" }

[[host]]
label = "graviton"
ssh = "ubuntu@db-arm"
role = "sut"
instance = "m7g.xlarge"
pgrig = "/opt/pgrig/bin/pgrig"
install_dir = "/opt/pgrig/bin"
work_dir = "/srv/work"
env = { PGRIG_HOME = "/srv/pgrig", PGRIG_SERVER_USER = "pg" }

[[host]]
ssh = "xeon"
usd_per_hour = 0.192
teardown = { command = ["echo", "bye"], timeout = 30 }
)";

TEST(FleetFile, ReadsEveryKey) {
  auto f = ParseFleet(kGood, "/etc/fleets/two.toml");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->plan, "quick");
  EXPECT_EQ(f->mode, FleetMode::kCompare);
  EXPECT_EQ(f->ssh_config, "/etc/fleets/keys/ssh_config");
  EXPECT_EQ(f->connect_timeout, std::chrono::seconds(5));
  EXPECT_FALSE(f->parallel);
  EXPECT_EQ(f->results_dir, "/etc/fleets/fleet-results");
  ASSERT_TRUE(f->provision);
  EXPECT_EQ(f->provision->argv, (std::vector<std::string>{"terraform", "apply", "-auto-approve"}));
  EXPECT_EQ(f->provision->timeout, std::chrono::seconds(900));
  ASSERT_TRUE(f->teardown);
  EXPECT_EQ(f->teardown->argv,
            (std::vector<std::string>{"sh", "-c", "terraform destroy -auto-approve"}));
  EXPECT_EQ(f->teardown->timeout, std::chrono::seconds(600));
  ASSERT_EQ(f->hosts.size(), 2u);
  EXPECT_EQ(f->hosts[0].label, "graviton");
  EXPECT_EQ(f->hosts[0].destination, "ubuntu@db-arm");
  EXPECT_EQ(f->hosts[0].instance, "m7g.xlarge");
  EXPECT_EQ(f->hosts[0].pgrig, "/opt/pgrig/bin/pgrig");
  EXPECT_EQ(f->hosts[0].install_dir, "/opt/pgrig/bin");
  EXPECT_EQ(f->hosts[0].work_dir, "/srv/work");
  EXPECT_EQ(f->hosts[0].env, (std::map<std::string, std::string>{{"PGRIG_HOME", "/srv/pgrig"},
                                                                 {"PGRIG_SERVER_USER", "pg"}}));
  EXPECT_EQ(f->hosts[1].install_dir, ".pgrig/bin");
  EXPECT_EQ(f->hosts[1].work_dir, ".pgrig/fleet");
  EXPECT_TRUE(f->hosts[1].env.empty());
  EXPECT_EQ(f->hosts[1].label, "xeon");  // defaults to the destination
  EXPECT_EQ(f->hosts[1].role, HostRole::kSut);
  EXPECT_EQ(f->hosts[1].pgrig, "pgrig");
  EXPECT_DOUBLE_EQ(f->hosts[1].usd_per_hour.value(), 0.192);
  ASSERT_TRUE(f->hosts[1].teardown);
  EXPECT_EQ(f->hosts[1].teardown->timeout, std::chrono::seconds(30));
  EXPECT_EQ(f->HostsWithRole(HostRole::kSut).size(), 2u);
}

TEST(FleetFile, PlanFileIsResolvedAgainstTheFleetFile) {
  auto f =
      ParseFleet("[fleet]\nplan = \"plans/mine.toml\"\n[[host]]\nssh = \"a\"\n", "/home/u/f.toml");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->plan, "/home/u/plans/mine.toml");
}

TEST(FleetFile, ClientsModeNeedsClientsAndAServer) {
  auto ok = ParseFleet(
      "[fleet]\nplan = \"quick\"\nmode = \"clients\"\nserver = \"host=db password=x\"\n"
      "bench = [\"-S\", \"-c\", \"4\", \"-T\", \"30\"]\n"
      "[[host]]\nssh = \"c1\"\nrole = \"client\"\n[[host]]\nssh = \"c2\"\nrole = \"client\"\n",
      "f.toml");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->HostsWithRole(HostRole::kClient).size(), 2u);
  ASSERT_TRUE(ok->bench.has_value());
  EXPECT_EQ(ok->bench->size(), 5u);
  auto no_server = ParseFleet(
      "[fleet]\nplan = \"quick\"\nmode = \"clients\"\n[[host]]\nssh = \"c1\"\nrole = \"client\"\n",
      "f.toml");
  ASSERT_FALSE(no_server.ok());
  EXPECT_THAT(no_server.status().message(), HasSubstr("needs 'server'"));
  auto no_clients = ParseFleet(
      "[fleet]\nplan = \"quick\"\nmode = \"clients\"\nserver = \"host=db\"\n[[host]]\nssh = "
      "\"c1\"\n",
      "f.toml");
  ASSERT_FALSE(no_clients.ok());
  EXPECT_THAT(no_clients.status().message(), HasSubstr("role = \"client\""));
}

TEST(FleetFile, ModeComesFromTheRolesWhenNotGiven) {
  // Only client hosts: clients mode, without a plan.
  auto clients = ParseFleet(
      "[fleet]\nserver = \"host=db\"\nbench = [\"-T\", \"5\"]\n"
      "[[host]]\nssh = \"c1\"\nrole = \"client\"\n",
      "f.toml");
  ASSERT_TRUE(clients.ok()) << clients.status().ToString();
  EXPECT_EQ(clients->mode, FleetMode::kClients);
  // A sut host: compare mode, which needs the plan.
  auto compare = ParseFleet("[fleet]\nplan = \"quick\"\n[[host]]\nssh = \"a\"\n", "f.toml");
  ASSERT_TRUE(compare.ok()) << compare.status().ToString();
  EXPECT_EQ(compare->mode, FleetMode::kCompare);
}

TEST(FleetFile, ClientsBenchIsValidatedBeforeAnything) {
  const char* head = "[fleet]\nserver = \"host=db\"\n";
  const char* host = "[[host]]\nssh = \"c1\"\nrole = \"client\"\n";
  struct Case {
    const char* bench;
    const char* expect;
  };
  for (const Case& c :
       {Case{"[\"-S\", \"-c\", \"4\"]", "no -T SECONDS"},
        Case{"[\"-T\", \"0\"]", "-T/--time must be in range"},
        Case{"[\"-T\", \"86401\"]", "from 1 to 86400"},
        Case{"[\"-T\", \"5\", \"-t\", \"10\"]", "not both"}, Case{"[\"-t\", \"10\"]", "not -t"},
        Case{"[\"-T\", \"5\", \"-i\"]", "not -i"},
        Case{"[\"-T\", \"5\", \"--no-such\"]", "unknown option"},
        Case{"[\"-T\", \"5\", \"mydb\"]", "sets the server"},
        Case{"[\"-T5\", \"--json\", \"x.json\"]", "sets the server"},
        Case{"[\"-T\", \"5\", \"-h\", \"other\"]", "sets the server"},
        Case{"[]", "non-empty array"}, Case{"[\"-T\", 5]", "must be strings"}}) {
    auto f = ParseFleet(std::string(head) + "bench = " + c.bench + "\n" + host, "f.toml");
    ASSERT_FALSE(f.ok()) << c.bench;
    EXPECT_THAT(f.status().message(), ::testing::StartsWith("f.toml:3: ")) << c.bench;
    EXPECT_THAT(f.status().message(), HasSubstr(c.expect)) << f.status().message();
  }
  auto no_bench = ParseFleet(std::string(head) + host, "f.toml");
  ASSERT_FALSE(no_bench.ok());
  EXPECT_THAT(no_bench.status().message(), HasSubstr("needs 'bench'"));
  EXPECT_THAT(no_bench.status().message(), HasSubstr("or 'tpcc'"));
  auto bench_in_compare = ParseFleet(
      "[fleet]\nplan = \"q\"\nbench = [\"-T\", \"5\"]\n[[host]]\nssh = \"a\"\n", "f.toml");
  ASSERT_FALSE(bench_in_compare.ok());
  EXPECT_THAT(bench_in_compare.status().message(), HasSubstr("for clients mode"));
  auto time_forms = CheckClientBench({"-S", "--time=7"});
  ASSERT_TRUE(time_forms.ok());
  EXPECT_EQ(*time_forms, 7);
  EXPECT_EQ(CheckClientBench({"-T12"}).value(), 12);
  // Read as pgbench reads them (issue 26: a prefix match missed bundled
  // letters): -T inside a bundle, an option's value that looks like one.
  EXPECT_EQ(CheckClientBench({"-nST5"}).value(), 5);
  EXPECT_EQ(CheckClientBench({"-f", "-hot.sql", "-T", "9"}).value(), 9);
}

// `tpcc` is read by pgrig tpcc run's own option definitions
// (tpcc/run_args.h), before anything is contacted.
TEST(FleetFile, ClientsTpccIsValidatedBeforeAnything) {
  const char* head = "[fleet]\nserver = \"host=db\"\n";
  const char* host = "[[host]]\nssh = \"c1\"\nrole = \"client\"\n";
  auto ok = ParseFleet(std::string(head) +
                           "tpcc = [\"-c\", \"4\", \"-T\", \"30\", \"--warmup\", "
                           "\"10\", \"--procedures\"]\n" +
                           host,
                       "f.toml");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->mode, FleetMode::kClients);
  ASSERT_TRUE(ok->tpcc.has_value());
  EXPECT_FALSE(ok->bench.has_value());
  auto t = CheckClientTpcc(*ok->tpcc);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->duration_s, 30);
  EXPECT_EQ(t->warmup_s, 10);
  // Without -T, tpcc run's default window (60 s).
  EXPECT_EQ(CheckClientTpcc({"-c", "2"}).value().duration_s, 60);
  struct Case {
    const char* tpcc;
    const char* expect;
  };
  for (const Case& c :
       {Case{"[\"-T\", \"0\"]", "-T 0: seconds"}, Case{"[\"-M\", \"fast\"]", "-M fast"},
        Case{"[\"-c\", \"2\", \"-j\", \"3\"]", "-j 3"},
        Case{"[\"--spec-timing\", \"-R\", \"10\"]", "give one"},
        Case{"[\"--no-such\"]", "--no-such"}, Case{"[\"-T\", \"five\"]", "five"},
        Case{"[\"mydb\"]", "sets the server"}, Case{"[\"-d\", \"x\"]", "sets the server"},
        Case{"[\"--json\", \"x.json\"]", "sets the server"},
        Case{"[\"-h\", \"other\"]", "sets the server"},
        Case{"[\"--check-warehouses\", \"2\"]", "every warehouse"},
        Case{"[\"--help\"]", "runs nothing"}, Case{"[]", "non-empty array"},
        Case{"[\"-T\", 5]", "must be strings"}}) {
    auto f = ParseFleet(std::string(head) + "tpcc = " + c.tpcc + "\n" + host, "f.toml");
    ASSERT_FALSE(f.ok()) << c.tpcc;
    EXPECT_THAT(f.status().message(), ::testing::StartsWith("f.toml:3: ")) << c.tpcc;
    EXPECT_THAT(f.status().message(), HasSubstr(c.expect)) << f.status().message();
  }
  auto both = ParseFleet(
      std::string(head) + "bench = [\"-T\", \"5\"]\ntpcc = [\"-T\", \"5\"]\n" + host, "f.toml");
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(both.status().message(), HasSubstr("both 'bench' and 'tpcc'"));
  auto in_compare = ParseFleet(
      "[fleet]\nplan = \"q\"\ntpcc = [\"-T\", \"5\"]\n[[host]]\nssh = \"a\"\n", "f.toml");
  ASSERT_FALSE(in_compare.ok());
  EXPECT_THAT(in_compare.status().message(), HasSubstr("'tpcc' in [fleet] is for clients mode"));
}

struct Bad {
  const char* name;
  const char* text;
  const char* expect;  // substring of the message, which always starts with file:line
};

class FleetFileBad : public ::testing::TestWithParam<Bad> {};

TEST_P(FleetFileBad, NamesFileLineAndKey) {
  const Bad& b = GetParam();
  auto f = ParseFleet(b.text, "bad.toml");
  ASSERT_FALSE(f.ok()) << b.name;
  EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(f.status().message(), ::testing::StartsWith("bad.toml:")) << f.status().message();
  EXPECT_THAT(f.status().message(), HasSubstr(b.expect)) << f.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, FleetFileBad,
    ::testing::Values(
        Bad{"toml", "[fleet\nplan = 1\n", "not valid TOML"},
        Bad{"no_fleet", "[[host]]\nssh = \"a\"\n", "needs a [fleet] table"},
        Bad{"no_plan", "[fleet]\nmode = \"compare\"\n[[host]]\nssh = \"a\"\n", "no 'plan'"},
        Bad{"fleet_typo", "[fleet]\nplan = \"q\"\nparalel = true\n[[host]]\nssh = \"a\"\n",
            "bad.toml:3: unknown key 'paralel' in [fleet]; did you mean 'parallel'?"},
        Bad{"host_typo", "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\nlabl = \"x\"\n",
            "bad.toml:5: unknown key 'labl' in [[host]] #1; did you mean 'label'?"},
        Bad{"top_typo", "[fleet]\nplan = \"q\"\n[[hosts]]\nssh = \"a\"\n",
            "unknown key 'hosts' in the fleet file; did you mean 'host'?"},
        Bad{"no_hosts", "[fleet]\nplan = \"q\"\n", "no [[host]] tables"},
        Bad{"no_ssh", "[fleet]\nplan = \"q\"\n[[host]]\nlabel = \"a\"\n", "has no 'ssh'"},
        Bad{"option_injection", "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"-oProxyCommand=x\"\n",
            "bad.toml:4: 'ssh' in [[host]] #1: \"-oProxyCommand=x\" is not an ssh destination"},
        Bad{"role", "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\nrole = \"cleint\"\n",
            "bad.toml:5: 'role' in [[host]] 'a': unknown role \"cleint\""},
        Bad{"dup_label",
            "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\n[[host]]\nssh = \"b\"\nlabel = \"a\"\n",
            "bad.toml:5: [[host]] 'a': the label is used by another host"},
        Bad{"bad_label", "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\nlabel = \"x/y\"\n",
            "bad.toml:5: 'label'"},
        Bad{"price_both",
            "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\ninstance = \"m7g.large\"\nusd_per_hour "
            "= 1\n",
            "both 'instance' and 'usd_per_hour'"},
        Bad{"price_on_client",
            "[fleet]\nserver = \"host=db\"\nbench = [\"-T\", \"5\"]\n[[host]]\nssh = \"a\"\nrole = "
            "\"client\"\ninstance = \"m7g.large\"\n",
            "bad.toml:7: 'instance' in [[host]] 'a': a client host is a load generator and is "
            "not priced"},
        Bad{"price_on_client_in_compare",
            "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"s\"\n[[host]]\nssh = \"c\"\nusd_per_hour "
            "= 0.5\nrole = \"client\"\n",
            "bad.toml:7: 'usd_per_hour' in [[host]] 'c': a client host"},
        Bad{"price_negative", "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\nusd_per_hour = -1\n",
            "bad.toml:5: 'usd_per_hour' in [[host]] 'a' must be above 0"},
        Bad{"timeout", "[fleet]\nplan = \"q\"\nconnect_timeout = 0\n[[host]]\nssh = \"a\"\n",
            "bad.toml:3: 'connect_timeout' in [fleet] must be from 1 to 86400"},
        Bad{"hook_type", "[fleet]\nplan = \"q\"\nprovision = \"make\"\n[[host]]\nssh = \"a\"\n",
            "bad.toml:3: 'provision' in [fleet] must be a table"},
        Bad{"hook_key",
            "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\nteardown = { comand = \"x\" }\n",
            "unknown key 'comand' in 'teardown' in [[host]] 'a'; did you mean 'command'?"},
        Bad{"hook_empty",
            "[fleet]\nplan = \"q\"\nteardown = { command = [] }\n[[host]]\nssh = \"a\"\n",
            "'command' is empty"},
        Bad{"env_name", "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\nenv = { \"A-B\" = \"x\" }\n",
            "bad.toml:5: 'env' in [[host]] 'a': 'A-B' must be a variable name"},
        Bad{"mode", "[fleet]\nplan = \"q\"\nmode = \"both\"\n[[host]]\nssh = \"a\"\n",
            "bad.toml:3: 'mode' in [fleet]: unknown mode \"both\""},
        Bad{"keep_cluster_type",
            "[fleet]\nplan = \"q\"\nkeep_cluster = \"yes\"\n[[host]]\nssh = \"a\"\n",
            "bad.toml:3: 'keep_cluster' in [fleet] must be true or false"},
        Bad{"keep_cluster_host_type",
            "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\nkeep_cluster = 1\n",
            "bad.toml:5: 'keep_cluster' in [[host]] 'a' must be true or false"},
        Bad{"keep_cluster_on_client",
            "[fleet]\nplan = \"q\"\n[[host]]\nssh = \"s\"\n[[host]]\nssh = \"c\"\nrole = "
            "\"client\"\nkeep_cluster = true\n",
            "bad.toml:8: 'keep_cluster' in [[host]] 'c': a client host"},
        Bad{"keep_cluster_in_clients_mode",
            "[fleet]\nserver = \"host=db\"\nbench = [\"-T\", \"5\"]\nkeep_cluster = false\n"
            "[[host]]\nssh = \"a\"\nrole = \"client\"\n",
            "bad.toml:4: 'keep_cluster' in [fleet] is for compare mode"}),
    [](const ::testing::TestParamInfo<Bad>& i) { return std::string(i.param.name); });

// keep_cluster: the fleet's value is every sut host's default; a host's own
// wins; without either, a run stops the clusters it started.
TEST(FleetFile, KeepClusterPerFleetAndPerHost) {
  auto none = ParseFleet("[fleet]\nplan = \"q\"\n[[host]]\nssh = \"a\"\n", "f.toml");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->hosts[0].keep_cluster);
  auto f = ParseFleet(
      "[fleet]\nplan = \"q\"\nkeep_cluster = true\n[[host]]\nssh = \"a\"\n[[host]]\nssh = "
      "\"b\"\nkeep_cluster = false\n",
      "f.toml");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->hosts[0].keep_cluster);
  EXPECT_FALSE(f->hosts[1].keep_cluster);
}

TEST(FleetFile, MissingFileSaysWhich) {
  auto f = ReadFleetFile("/nonexistent/fleet.toml");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("/nonexistent/fleet.toml"));
}

}  // namespace
}  // namespace pgrig::fleet
