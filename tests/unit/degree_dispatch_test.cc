// dispatch_degree and dispatch_constant (base/degree_dispatch.h): every
// runtime value reaches the compile-time constant equal to it, a degree out
// of 1..8 is refused, a value past a constant range takes its last constant,
// and the callable's result comes back.

#include <cellwise/base/degree_dispatch.h>
#include <cellwise/base/exceptions.h>

#include <gtest/gtest.h>

using namespace cellwise;

TEST(DegreeDispatch, EveryValueReachesItsConstant)
{
  for (unsigned int degree = 1; degree <= 8; ++degree)
    EXPECT_EQ(dispatch_degree(degree, [](auto p) { return decltype(p)::value; }), static_cast<int>(degree));
  EXPECT_THROW(dispatch_degree(0, [](auto) {}), Error);
  EXPECT_THROW(dispatch_degree(9, [](auto) {}), Error);
  for (unsigned int k = 0; k <= 3; ++k)
    EXPECT_EQ((dispatch_constant<0, 3>(k, [](auto c) { return decltype(c)::value; })), static_cast<int>(k));
  EXPECT_EQ((dispatch_constant<0, 3>(7, [](auto c) { return decltype(c)::value; })), 3);
  int calls = 0;
  dispatch_constant<2, 2>(2, [&](auto c) { calls += decltype(c)::value; });
  EXPECT_EQ(calls, 2);
}
