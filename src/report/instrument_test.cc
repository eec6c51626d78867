// The comparison as an instrument: seeded synthetic suites of known true
// ratio, compared and checked thousands of times, and the rates the
// verdicts must meet (docs/report.md, "How often is it wrong").  The suites
// are built as the reader would leave them (results::Suite), then go
// through Analyze, Compare and CheckClaim as `pgrig compare` does.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "report/analysis.h"
#include "report/claims.h"
#include "report/compare.h"

namespace pgrig::report {
namespace instrument {
namespace {

std::string CellId(int index) {
  return fmt::format("select-only/simple/default/c{}/j1", index + 1);
}

// `cells` select-only cells of `n` iterations each, log-normal around
// `median` with a log-scale standard deviation `sd`.
std::unique_ptr<results::Suite> MakeSuite(const std::string& label, int cells, int n, double median,
                                          double sd, std::mt19937_64& rng) {
  auto s = std::make_unique<results::Suite>();
  s->schema = "pgrig.suite/1";
  s->label = label;
  s->plan_name = "synthetic";
  s->scale = 10;
  s->facts = nlohmann::json::object();
  std::normal_distribution<double> z(0.0, sd);
  for (int i = 0; i < cells; ++i) {
    results::Cell c;
    c.id = CellId(i);
    c.workload = "select-only";
    c.protocol = "simple";
    c.variant = "default";
    c.clients = i + 1;
    c.threads = 1;
    for (int k = 0; k < n; ++k) {
      results::Run r;
      r.iteration = k + 1;
      r.tps = median * std::exp(z(rng));
      r.duration_s = 10;
      c.runs.push_back(std::move(r));
    }
    s->cells.push_back(std::move(c));
  }
  return s;
}

// A pair: B (the base) at 1,000 tps in every cell, A at `ratio` times that.
struct Pair {
  std::unique_ptr<results::Suite> a_suite, b_suite;
  std::unique_ptr<SuiteStats> a, b;

  std::vector<const SuiteStats*> ForCompare() const { return {b.get(), a.get()}; }
  std::vector<const SuiteStats*> ForClaims() const { return {a.get(), b.get()}; }
};

Pair MakePair(int cells, int n, double ratio, double sd, std::mt19937_64& rng) {
  Pair p;
  p.a_suite = MakeSuite("a", cells, n, 1000 * ratio, sd, rng);
  p.b_suite = MakeSuite("b", cells, n, 1000, sd, rng);
  auto a = Analyze(*p.a_suite);
  auto b = Analyze(*p.b_suite);
  EXPECT_TRUE(a.ok() && b.ok());
  p.a = std::make_unique<SuiteStats>(std::move(*a));
  p.b = std::make_unique<SuiteStats>(std::move(*b));
  return p;
}

bool Significant(Speed s) { return s == Speed::kFaster || s == Speed::kSlower; }

// Per cell, A/A: "faster"/"slower" in about 5% of cells, and the 95%
// intervals cover the true ratio in about 95% of cells, at n = 3 and 10.
TEST(Instrument, AaFalseCallsAndCoveragePerCell) {
  std::mt19937_64 rng(20261204);
  for (int n : {3, 10}) {
    for (double ratio : {1.0, 0.8, 1.25}) {
      int cells = 0, significant = 0, covered = 0;
      for (int t = 0; t < 250; ++t) {
        Pair p = MakePair(5, n, ratio, 0.05, rng);
        auto c = Compare(p.ForCompare());
        ASSERT_TRUE(c.ok()) << c.status().message();
        for (const CellComparison& cc : c->cells[0]) {
          ++cells;
          significant += Significant(cc.speed);
          covered += cc.tps.interval->Contains(ratio);
        }
      }
      const double coverage = static_cast<double>(covered) / cells;
      std::printf("n=%d ratio=%.2f: coverage %.4f over %d cells\n", n, ratio, coverage, cells);
      // 1,250 cells: the binomial standard deviation at 95% is 0.6%.  Welch's
      // interval is a little conservative at small n (its estimated degrees
      // of freedom fall below the pooled 2n - 2): 96-97% at n = 3 here.
      EXPECT_GE(coverage, 0.93) << n << " " << ratio;
      EXPECT_LE(coverage, 0.975) << n << " " << ratio;
      if (ratio == 1.0) {
        const double rate = static_cast<double>(significant) / cells;
        std::printf("n=%d A/A: %.4f of cells called significant\n", n, rate);
        EXPECT_GE(rate, 0.03);
        EXPECT_LE(rate, 0.07);
      }
    }
  }
}

// Family-wise: six A/A cells show at least one "significant" cell in about
// 1 - 0.95^6 = 26% of comparisons, and the output says how many chance
// alone makes; with Holm, at most about 5% of comparisons call any.
TEST(Instrument, MultiplicityIsStatedAndHolmControlsIt) {
  std::mt19937_64 rng(4242);
  int any_plain = 0, any_holm = 0;
  const int trials = 600;
  for (int t = 0; t < trials; ++t) {
    Pair p = MakePair(6, 3, 1.0, 0.05, rng);
    auto plain = Compare(p.ForCompare());
    auto holm = Compare(p.ForCompare(), CompareOptions{.family_wise = FamilyWise::kHolm});
    ASSERT_TRUE(plain.ok() && holm.ok());
    const Multiplicity& m = plain->multiplicity[0];
    EXPECT_EQ(m.cells, 6);
    EXPECT_NEAR(m.expected_by_chance, 0.3, 1e-12);
    EXPECT_NEAR(m.any_by_chance, 1 - std::pow(0.95, 6), 1e-12);
    int sig = 0, sig_holm = 0;
    for (const CellComparison& cc : plain->cells[0]) sig += Significant(cc.speed);
    for (const CellComparison& cc : holm->cells[0]) sig_holm += Significant(cc.speed);
    EXPECT_EQ(m.significant, sig);
    EXPECT_EQ(holm->multiplicity[0].significant, sig);  // before the adjustment
    EXPECT_EQ(holm->multiplicity[0].significant_family_wise, sig_holm);
    EXPECT_LE(sig_holm, sig);
    any_plain += sig > 0;
    any_holm += sig_holm > 0;
  }
  const double plain_rate = static_cast<double>(any_plain) / trials;
  const double holm_rate = static_cast<double>(any_holm) / trials;
  std::printf("6 A/A cells: any significant in %.4f (per cell 95%%), %.4f with Holm\n", plain_rate,
              holm_rate);
  // 1 - 0.962^6 = 21% at Welch's n = 3 per-cell rate; 600 trials: sd 1.7%.
  EXPECT_GE(plain_rate, 0.15);
  EXPECT_LE(plain_rate, 0.33);
  EXPECT_LE(holm_rate, 0.07);
}

struct Outcomes {
  int supported = 0, contradicted = 0, undecided = 0, trials = 0;
  double Rate(int k) const { return static_cast<double>(k) / trials; }
};

// `claim` ("A is 1.38x B") on one named cell of fresh pairs.
Outcomes Judge(const std::string& claim, double ratio, int n, double sd, int trials,
               std::mt19937_64& rng, std::vector<ClaimCheck>* kept = nullptr) {
  Outcomes o;
  for (int t = 0; t < trials; ++t) {
    Pair p = MakePair(1, n, ratio, sd, rng);
    auto c = CheckClaim(claim + " in cell " + CellId(0), p.ForClaims());
    EXPECT_TRUE(c.ok()) << c.status().message();
    if (!c.ok()) return o;
    ++o.trials;
    (c->verdict == ClaimVerdict::kSupported      ? o.supported
     : c->verdict == ClaimVerdict::kContradicted ? o.contradicted
                                                 : o.undecided)++;
    if (kept) kept->push_back(std::move(*c));
  }
  std::printf("%s, true %.2f, n=%d, sd %.2f: supported %.3f contradicted %.3f undecided %.3f\n",
              claim.c_str(), ratio, n, sd, o.Rate(o.supported), o.Rate(o.contradicted),
              o.Rate(o.undecided));
  return o;
}

TEST(Instrument, ClaimsHaveThreeAnswersAtTheRatesTheyMust) {
  std::mt19937_64 rng(1384);
  // A true claim with enough data: supported, almost never contradicted.
  Outcomes right = Judge("A is 1.38x B", 1.38, 10, 0.05, 300, rng);
  EXPECT_GE(right.Rate(right.supported), 0.9);
  EXPECT_LE(right.Rate(right.contradicted), 0.05);
  // A false claim (true 1.10): not supported (the issue saw 38% at n = 3).
  Outcomes wrong = Judge("A is 1.38x B", 1.10, 3, 0.05, 300, rng);
  EXPECT_LE(wrong.Rate(wrong.supported), 0.05);
  EXPECT_GE(wrong.Rate(wrong.contradicted), 0.6);
  // "1.0x" when the truth is 1.38: never supported.
  Outcomes equal = Judge("A is 1.0x B", 1.38, 3, 0.05, 300, rng);
  EXPECT_EQ(equal.supported, 0);
  // ... and supported when it holds, with tight data.
  Outcomes same = Judge("A is 1.0x B", 1.0, 10, 0.01, 300, rng);
  EXPECT_GE(same.Rate(same.supported), 0.9);
  // Noisy data: mostly undecided, each with the iterations that would likely decide it.
  std::vector<ClaimCheck> noisy;
  Outcomes loose = Judge("A is 1.38x B", 1.38, 3, 0.3, 300, rng, &noisy);
  EXPECT_GE(loose.Rate(loose.undecided), 0.5);
  EXPECT_LE(loose.Rate(loose.contradicted), 0.05);
  int with_n = 0;
  for (const ClaimCheck& c : noisy) {
    if (c.verdict == ClaimVerdict::kUndecided)
      with_n += c.cells[0].iterations_to_decide.has_value();
    // No ratio claim is supported by an interval that contains 1.0.
    if (c.verdict == ClaimVerdict::kSupported) {
      EXPECT_GT(c.interval->low, 1.0);
    }
  }
  // The rest would need more than kMaxIterationsToDecide (an interval
  // centred on the claim's edge).
  EXPECT_GE(with_n, loose.undecided * 8 / 10);
}

// The iterations an undecided claim asks for decide it at least about half
// the time when they are run.
TEST(Instrument, IterationsToDecideDoDecide) {
  std::mt19937_64 rng(77);
  int asked = 0, decided = 0;
  for (int t = 0; t < 400 && asked < 120; ++t) {
    Pair p = MakePair(1, 3, 1.38, 0.3, rng);
    auto c = CheckClaim("A is 1.38x B in cell " + CellId(0), p.ForClaims());
    ASSERT_TRUE(c.ok());
    if (c->verdict != ClaimVerdict::kUndecided || !c->cells[0].iterations_to_decide) continue;
    const int n = static_cast<int>(*c->cells[0].iterations_to_decide);
    if (n > 200) continue;
    ++asked;
    Pair again = MakePair(1, n, 1.38, 0.3, rng);
    auto d = CheckClaim("A is 1.38x B in cell " + CellId(0), again.ForClaims());
    ASSERT_TRUE(d.ok());
    decided += d->verdict != ClaimVerdict::kUndecided;
  }
  std::printf("decided at the proposed iterations: %d of %d\n", decided, asked);
  ASSERT_GE(asked, 50);
  EXPECT_GE(static_cast<double>(decided) / asked, 0.5);
}

TEST(Instrument, IterationsToDecideIsTheFirstNarrowEnough) {
  // At sd 0.1 per iteration, two sides: n = 10 gives t(0.975, 18) x 0.1 x
  // sqrt(0.2) = 0.0940; n = 9 gives t(0.975, 16) x 0.1 x sqrt(2/9) = 0.0999.
  EXPECT_EQ(IterationsToDecide(0.095, 0.1, 2), 10);
  EXPECT_EQ(IterationsToDecide(0.1, 0.1, 2), 9);
  EXPECT_FALSE(IterationsToDecide(0.0, 0.1, 2).has_value());
  EXPECT_FALSE(IterationsToDecide(1e-6, 0.1, 2).has_value());  // beyond the cap
  EXPECT_EQ(IterationsToDecide(0.5, 0.0, 2), 2);
}

// "at peak" among five equal cells: the chosen cell reads high (selection),
// and the widened interval still covers the truth at least 95% of the time;
// the plain 95% interval of the chosen cell would not.
TEST(Instrument, APeakIsCorrectedForItsChoice) {
  std::mt19937_64 rng(555);
  int covered = 0, covered_plain = 0;
  double log_bias = 0;
  const int trials = 600;
  for (int t = 0; t < trials; ++t) {
    Pair p = MakePair(5, 3, 1.2, 0.05, rng);
    auto c = CheckClaim("A is 1.2x B at peak", p.ForClaims());
    ASSERT_TRUE(c.ok()) << c.status().message();
    ASSERT_EQ(c->cells.size(), 1u);
    EXPECT_NEAR(c->cells[0].confidence, 0.99, 1e-12);
    EXPECT_NE(c->basis.find("where a peaks among 5 cells"), std::string::npos) << c->basis;
    covered += c->interval->Contains(1.2);
    log_bias += std::log(*c->measured / 1.2);
    const CellStats* a = nullptr;
    const CellStats* b = nullptr;
    for (const CellStats& x : p.a->cells) a = x.id == c->cells[0].cell ? &x : a;
    for (const CellStats& x : p.b->cells) b = x.id == c->cells[0].cell ? &x : b;
    auto plain = stats::CompareRatio(a->tps, b->tps);
    covered_plain += plain->interval->Contains(1.2);
  }
  std::printf("peak of 5: widened covers %.4f, plain 95%% covers %.4f, mean bias %+.2f%%\n",
              static_cast<double>(covered) / trials, static_cast<double>(covered_plain) / trials,
              (std::exp(log_bias / trials) - 1) * 100);
  EXPECT_GE(static_cast<double>(covered) / trials, 0.95);
  EXPECT_GT(log_bias, 0);  // the choice reads high, as the output says
}

// The decision table pairs one cell id across the suites (never A's c3
// against B's c4), says when there is none, and widens the interval of a
// cell chosen among several; --best-each restores each suite's own best.
TEST(Instrument, DecisionTableReadsOneCommonCell) {
  std::mt19937_64 rng(9);
  auto a_suite = MakeSuite("a", 3, 3, 1000, 0.05, rng);           // c1 c2 c3
  auto b_suite = MakeSuite("b", 4, 3, 1000, 0.05, rng);           // c1 .. c4
  b_suite->cells.erase(b_suite->cells.begin());                   // c2 .. c4
  for (results::Run& r : b_suite->cells.back().runs) r.tps *= 3;  // B peaks at c4
  for (results::Run& r : a_suite->cells[1].runs) r.tps *= 2;      // A and B together at c2
  auto a = Analyze(*a_suite);
  auto b = Analyze(*b_suite);
  ASSERT_TRUE(a.ok() && b.ok());
  auto c = Compare({&*b, &*a});
  ASSERT_TRUE(c.ok());
  ASSERT_NE(c->decision[0].read_only, nullptr);
  ASSERT_NE(c->decision[1].read_only, nullptr);
  EXPECT_EQ(c->decision[0].read_only->id, CellId(1));
  EXPECT_EQ(c->decision[1].read_only->id, CellId(1));
  EXPECT_EQ(c->decision[0].read_only_among, 2);  // c2 and c3 are in both
  // Widened: at 97.5% it is wider than the cell's own 95% interval.
  EXPECT_LT(c->decision[1].read_only_ci->low, c->decision[1].read_only->tps_ci->low);
  EXPECT_GT(c->decision[1].read_only_ci->high, c->decision[1].read_only->tps_ci->high);
  EXPECT_TRUE(c->decision_choice.no_common.empty());

  auto each = Compare({&*b, &*a}, CompareOptions{.best_each = true});
  ASSERT_TRUE(each.ok());
  EXPECT_EQ(each->decision[0].read_only->id, CellId(3));
  EXPECT_EQ(each->decision[0].read_only_among, 3);
  EXPECT_EQ(each->decision[1].read_only->id, CellId(1));

  // No cell in common: nothing is paired, and the choice says which kind.
  b_suite->cells.erase(b_suite->cells.begin(), b_suite->cells.begin() + 2);  // c4 only
  auto b4 = Analyze(*b_suite);
  auto a2 = Analyze(*a_suite);
  ASSERT_TRUE(b4.ok() && a2.ok());
  auto none = Compare({&*b4, &*a2});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->decision[0].read_only, nullptr);
  EXPECT_EQ(none->decision[1].read_only, nullptr);
  ASSERT_EQ(none->decision_choice.no_common.size(), 1u);
  EXPECT_EQ(none->decision_choice.no_common[0], "read-only");
}

}  // namespace
}  // namespace instrument
}  // namespace pgrig::report
