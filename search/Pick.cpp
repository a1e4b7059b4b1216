#include "ttlplan/search/Pick.h"

#include <fmt/format.h>

namespace ttlplan::search {

Pick choosePick(const Record& fastest, const std::optional<Record>& baseline, double margin) {
  Pick p;
  p.record = fastest;
  p.margin = margin;
  if (!baseline || !baseline->ok() || !baseline->predictedNs || !fastest.predictedNs ||
      *fastest.predictedNs <= 0) {
    p.why = "the fastest predicted point (no feasible baseline)";
    return p;
  }
  p.predictedGain = *baseline->predictedNs / *fastest.predictedNs - 1;
  if (p.predictedGain <= margin) {
    p.record = *baseline;
    p.keptBaseline = true;
    p.why = fmt::format("the baseline: the fastest point is predicted {:.1f} % faster, within the "
                        "cost model's ranking uncertainty of {:.1f} %",
                        100 * p.predictedGain, 100 * margin);
    return p;
  }
  p.why = fmt::format("the fastest predicted point: {:.1f} % faster than the baseline, beyond the "
                      "cost model's ranking uncertainty of {:.1f} %",
                      100 * p.predictedGain, 100 * margin);
  return p;
}

} // namespace ttlplan::search
