// FamilyCandidate: one member of a built-in remap family (the family and its parameter),
// shared by the built-in proposer (which renders it as a region) and family_order (which
// computes its order natively for the locality model).
#pragma once

#include <string>
#include <vector>

namespace swz {

struct FamilyCandidate {
  std::string family;  // die_rr | die_chunk | grouped_m | grouped_n | grouped_m_die | topo_group
                       // | col_major | longest_first | gqa_group
  int param = 0;       // G or C; 0 when the family has none
  std::vector<int> table{};  // topo_group: measured first-wave pid -> L2 side
  // gqa_group: grid columns c + n_stride * (k * n_group + i), i < n_group, share data (the
  // heads of one GQA group at one batch index); from the program's info hints.
  int n_group = 0;
  int n_stride = 0;
  std::string label() const;
};

}  // namespace swz
