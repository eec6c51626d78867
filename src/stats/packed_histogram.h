// PackedHistogram: a histogram's exported form (HistogramData) with its
// buckets packed into a short ASCII string, for storage and for keeping
// thousands of runs' histograms in memory.  A suite of 200 cells x 10
// iterations holds 2,000 histograms of 4,000-20,000 non-empty buckets each;
// as HistogramData (24 bytes a bucket) that is 200-900 MB, packed about a
// tenth (docs/results-format.md, "histogram"; bench/campaign.sh).
//
// Packing.  The non-empty buckets, in ascending index order (the layout of
// stats::Histogram), become two unsigned integers each:
//   index - previous index - 1   (the first bucket's previous index is -1)
//   count - 1                    (an exported bucket's count is >= 1)
// and each integer is written as Base64 VLQ (the encoding of JavaScript
// source maps, without its sign bit): 5 bits at a time, least significant
// first, each group one character of the standard Base64 alphabet
// (A-Z a-z 0-9 + /) whose value is the group plus 32 when more groups follow.
// Neighbouring buckets with small counts, the common case, cost two
// characters.  0 is "A", 31 is "f", 32 is "gB".
//
// Unpack() checks the encoding only (characters, truncation, overflow, an
// index beyond the layout); Histogram::Import checks the rest (counts add
// up, min/max and sums agree with the buckets).  ImportPacked does both.
// Pure functions over values; thread-safe.
#ifndef PGRIG_STATS_PACKED_HISTOGRAM_H_
#define PGRIG_STATS_PACKED_HISTOGRAM_H_

#include <cstdint>
#include <string>

#include "common/status.h"
#include "stats/histogram.h"

namespace pgrig::stats {

// HistogramData's fields, with `buckets` packed as described above.
struct PackedHistogram {
  std::string buckets;
  int64_t count = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t saturated_count = 0;
  int64_t negative_count = 0;
  std::string sum_ns;  // decimal; empty when unknown (HistogramData's rules)
  std::string sum_squares_ns2;

  bool operator==(const PackedHistogram&) const = default;
};

// Packs exported data.  `d` must come from Histogram::Export or have passed
// Histogram::Import (ascending buckets of the layout, positive counts).
PackedHistogram Pack(const HistogramData& d);
PackedHistogram Pack(const Histogram& h);

// The exported form back; an InvalidArgument naming the character offset
// when `p.buckets` is not a packing of ascending layout buckets.
Result<HistogramData> Unpack(const PackedHistogram& p);
// The same into `*out`, reusing its bucket vector's storage.
Status UnpackInto(const PackedHistogram& p, HistogramData* out);

// Unpack, then Histogram::Import.
Result<Histogram> ImportPacked(const PackedHistogram& p);
// Unpack, then Histogram::Assign: `h` reuses its table.
Status AssignPacked(const PackedHistogram& p, Histogram* h);

}  // namespace pgrig::stats

#endif  // PGRIG_STATS_PACKED_HISTOGRAM_H_
