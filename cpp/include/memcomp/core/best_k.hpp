// memcomp core: the k best items of a stream in one pass (the k most frequent values of a count
// table: frequent-value tables, E2MC's MFVs, the entropy bounds' top K).
#pragma once
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace memcomp {

/// Keeps the k best items offered under the strict order `better`: a heap whose front is the
/// worst kept, so an item that does not make the cut costs one comparison.
template <class T, class Better>
class BestK {
 public:
  BestK(std::size_t k, Better better) : k_(k), better_(std::move(better)) {}

  void reserve(std::size_t n) { heap_.reserve(std::min(n, k_) + 1); }

  void offer(const T& x) {
    if (k_ == 0) return;
    if (heap_.size() < k_) {
      heap_.push_back(x);
      std::push_heap(heap_.begin(), heap_.end(), better_);
    } else if (better_(x, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), better_);
      heap_.back() = x;
      std::push_heap(heap_.begin(), heap_.end(), better_);
    }
  }

  /// The items kept, best first (the keeper is left empty).
  std::vector<T> sorted() {
    std::sort(heap_.begin(), heap_.end(), better_);
    return std::move(heap_);
  }

 private:
  std::size_t k_;
  Better better_;
  std::vector<T> heap_;
};

}  // namespace memcomp
