#pragma once

// The benchmarks' one statistic: the sample below which a share p (0 to 1) of the samples lie.
#include <algorithm>
#include <vector>

inline double percentile(std::vector<double> samples, double p)
{
    std::sort(samples.begin(), samples.end());
    return samples[std::min(samples.size() - 1, size_t(p * double(samples.size())))];
}
