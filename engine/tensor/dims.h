#pragma once
// A tensor's shape (or strides): at most kMaxDims numbers held inline. Every op makes a tensor,
// and with std::vector each shape and stride list was a heap allocation of its own (measured in
// docs/speed.md, "Allocations"); these live inside the tensor. The interface is the part of
// std::vector's that shapes use, so shapes read as before: {22, 4096}, shape.back(), a range-for.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace llama {

class Dims {
public:
    // More dimensions than any model tensor has (4 at most, GGUF's limit too), and than a trace's
    // reader accepts.
    static constexpr size_t kMaxDims = 8;
    using value_type = int64_t;
    using iterator = int64_t*;
    using const_iterator = const int64_t*;
    using const_reverse_iterator = std::reverse_iterator<const int64_t*>;

    Dims() = default;
    Dims(std::initializer_list<int64_t> values) { assign(values.begin(), values.end()); }
    explicit Dims(size_t n) : Dims(n, 0) {}
    Dims(size_t n, int64_t value) {
        requireRoom(n);
        std::fill_n(values_, n, value);
        size_ = n;
    }
    template <typename It>
        requires(!std::is_integral_v<It>)
    Dims(It first, It last) {
        assign(first, last);
    }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    int64_t& operator[](size_t i) { return values_[i]; }
    int64_t operator[](size_t i) const { return values_[i]; }
    // As std::vector::at: a checked index.
    int64_t at(size_t i) const {
        if (i >= size_) throw std::out_of_range("dimension " + std::to_string(i) + " of a " + std::to_string(size_) + "-dimensional shape");
        return values_[i];
    }
    int64_t& back() { return values_[size_ - 1]; }
    int64_t back() const { return values_[size_ - 1]; }
    int64_t front() const { return values_[0]; }
    int64_t* data() { return values_; }
    const int64_t* data() const { return values_; }
    iterator begin() { return values_; }
    iterator end() { return values_ + size_; }
    const_iterator begin() const { return values_; }
    const_iterator end() const { return values_ + size_; }
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

    void push_back(int64_t v) {
        requireRoom(size_ + 1);
        values_[size_++] = v;
    }
    void pop_back() { --size_; }
    void resize(size_t n, int64_t value = 0) {
        requireRoom(n);
        for (size_t i = size_; i < n; ++i) values_[i] = value;
        size_ = n;
    }
    iterator insert(const_iterator pos, int64_t v) {
        const size_t at = size_t(pos - values_);
        requireRoom(size_ + 1);
        std::copy_backward(values_ + at, values_ + size_, values_ + size_ + 1);
        values_[at] = v;
        ++size_;
        return values_ + at;
    }
    template <typename It> iterator insert(const_iterator pos, It first, It last) {
        const size_t at = size_t(pos - values_);
        Dims tail(values_ + at, values_ + size_);
        size_ = at;
        for (It i = first; i != last; ++i) push_back(int64_t(*i));
        for (int64_t v : tail) push_back(v);
        return values_ + at;
    }
    iterator erase(const_iterator pos) {
        const size_t at = size_t(pos - values_);
        std::copy(values_ + at + 1, values_ + size_, values_ + at);
        --size_;
        return values_ + at;
    }

    void assign(size_t n, int64_t value) { *this = Dims(n, value); }
    template <typename It>
        requires(!std::is_integral_v<It>)
    void assign(It first, It last) {
        size_t n = 0;
        for (It i = first; i != last; ++i) {
            requireRoom(n + 1);
            values_[n++] = int64_t(*i);
        }
        size_ = n;
    }

    friend bool operator==(const Dims& a, const Dims& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

private:
    static void requireRoom(size_t n) {
        if (n > kMaxDims)
            throw std::invalid_argument("a tensor of " + std::to_string(n) + " dimensions: at most " + std::to_string(kMaxDims));
    }
    int64_t values_[kMaxDims] = {};
    size_t size_ = 0;
};

}  // namespace llama
