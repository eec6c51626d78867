// `pgrig_test_cluster start|destroy`: the CTest fixture that brings the
// shared integration-test cluster up before the integration tests and tears
// it down after them (also when tests fail).
#include <cstdio>
#include <cstring>

#include "support/test_cluster.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: pgrig_test_cluster start|destroy\n");
    return 1;
  }
  auto c = pgrig::cluster::Cluster::Open({.home = pgrig::testing::SharedHome()});
  if (!c.ok()) {
    std::fprintf(stderr, "%s\n", c.status().message().c_str());
    return 1;
  }
  if (std::strcmp(argv[1], "start") == 0) {
    auto r = c->Start();
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      return 1;
    }
    std::printf("test cluster running in %s\n", c->home().c_str());
    return 0;
  }
  if (std::strcmp(argv[1], "destroy") == 0) {
    auto s = c->Destroy();
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 1;
    }
    return 0;
  }
  std::fprintf(stderr, "unknown action %s\n", argv[1]);
  return 1;
}
