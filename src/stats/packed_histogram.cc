#include "stats/packed_histogram.h"

#include <array>
#include <string_view>

namespace pgrig::stats {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr int kGroupBits = 5;
constexpr int kMore = 1 << kGroupBits;  // 32: another group follows

// -1 for a character outside the alphabet.
constexpr std::array<int8_t, 256> DigitTable() {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (size_t k = 0; k < kAlphabet.size(); ++k) {
    t[static_cast<unsigned char>(kAlphabet[k])] = static_cast<int8_t>(k);
  }
  return t;
}
constexpr std::array<int8_t, 256> kDigit = DigitTable();

void AppendVlq(uint64_t v, std::string& out) {
  do {
    uint64_t group = v & (kMore - 1);
    v >>= kGroupBits;
    if (v != 0) group |= kMore;
    out.push_back(kAlphabet[group]);
  } while (v != 0);
}

// Reads one integer at `*pos`; false (with `*why`) on a bad character, a
// truncated integer or one beyond 63 bits.
bool ReadVlq(std::string_view s, size_t* pos, uint64_t* out, const char** why) {
  uint64_t v = 0;
  for (int shift = 0;; shift += kGroupBits) {
    if (*pos >= s.size()) {
      *why = "ends inside a number";
      return false;
    }
    const int d = kDigit[static_cast<unsigned char>(s[*pos])];
    if (d < 0) {
      *why = "is not a Base64 character";
      return false;
    }
    const auto group = static_cast<uint64_t>(d & (kMore - 1));
    if (shift >= 63 || (group >> (63 - shift)) != 0) {
      *why = "starts a number beyond 63 bits";
      return false;
    }
    v |= group << shift;
    ++*pos;
    if ((d & kMore) == 0) break;
  }
  *out = v;
  return true;
}

}  // namespace

PackedHistogram Pack(const HistogramData& d) {
  PackedHistogram p;
  p.count = d.count;
  p.min_ns = d.min_ns;
  p.max_ns = d.max_ns;
  p.saturated_count = d.saturated_count;
  p.negative_count = d.negative_count;
  p.sum_ns = d.sum_ns;
  p.sum_squares_ns2 = d.sum_squares_ns2;
  p.buckets.reserve(d.buckets.size() * 2 + 8);
  int64_t previous = -1;
  for (const HistogramBucket& b : d.buckets) {
    const int64_t index = Histogram::IndexOf(b.lower_ns);
    AppendVlq(static_cast<uint64_t>(index - previous - 1), p.buckets);
    AppendVlq(static_cast<uint64_t>(b.count - 1), p.buckets);
    previous = index;
  }
  return p;
}

PackedHistogram Pack(const Histogram& h) { return Pack(h.Export()); }

Result<HistogramData> Unpack(const PackedHistogram& p) {
  HistogramData d;
  PGRIG_RETURN_IF_ERROR(UnpackInto(p, &d));
  return d;
}

Status UnpackInto(const PackedHistogram& p, HistogramData* out) {
  HistogramData& d = *out;
  d.buckets.clear();
  d.count = p.count;
  d.min_ns = p.min_ns;
  d.max_ns = p.max_ns;
  d.saturated_count = p.saturated_count;
  d.negative_count = p.negative_count;
  d.sum_ns = p.sum_ns;
  d.sum_squares_ns2 = p.sum_squares_ns2;
  const std::string_view s = p.buckets;
  d.buckets.reserve(s.size() / 3);
  int64_t previous = -1;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t start = pos;
    uint64_t gap = 0, count = 0;
    const char* why = nullptr;
    if (!ReadVlq(s, &pos, &gap, &why) || !ReadVlq(s, &pos, &count, &why)) {
      return InvalidArgument("packed histogram buckets: the text at character " +
                             std::to_string(pos) + " " + why);
    }
    if (gap >= static_cast<uint64_t>(Histogram::kBucketCount - 1 - previous)) {
      return InvalidArgument("packed histogram buckets: the bucket at character " +
                             std::to_string(start) + " lies beyond the layout's " +
                             std::to_string(Histogram::kBucketCount) + " buckets");
    }
    if (count >= static_cast<uint64_t>(INT64_MAX)) {
      return InvalidArgument("packed histogram buckets: the count at character " +
                             std::to_string(start) + " is beyond 63 bits");
    }
    const int64_t index = previous + 1 + static_cast<int64_t>(gap);
    d.buckets.push_back({Histogram::BucketLower(index), Histogram::BucketUpper(index),
                         static_cast<int64_t>(count) + 1});
    previous = index;
  }
  return Status::Ok();
}

Result<Histogram> ImportPacked(const PackedHistogram& p) {
  PGRIG_ASSIGN_OR_RETURN(HistogramData d, Unpack(p));
  return Histogram::Import(d);
}

Status AssignPacked(const PackedHistogram& p, Histogram* h) {
  thread_local HistogramData buffer;  // its bucket vector grows once per thread
  const Status unpacked = UnpackInto(p, &buffer);
  if (!unpacked.ok()) {
    h->Reset();
    return unpacked;
  }
  return h->Assign(buffer);
}

}  // namespace pgrig::stats
