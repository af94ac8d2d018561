// The backend of the deal.II tests' front-door solves: host, or the device
// where CELLWISE_TEST_BACKEND=cuda (scripts/run-bundled-dealii-tests.sh runs
// them so on a GPU node). The tests' expected outputs are the same on both:
// what a solve reports (iterations, agreement with deal.II) must not depend
// on where it runs.
#pragma once

#include <cellwise/base/exceptions.h>
#include <cellwise/multigrid/multigrid_parameters.h>

#include <cstdlib>
#include <string>

namespace test
{
  inline cellwise::Backend
  backend()
  {
    const char *value = std::getenv("CELLWISE_TEST_BACKEND");
    if (value == nullptr || std::string(value).empty() || std::string(value) == "host")
      return cellwise::Backend::host;
    if (std::string(value) == "cuda")
      return cellwise::Backend::cuda;
    throw cellwise::Error(std::string("CELLWISE_TEST_BACKEND=") + value + ": take host or cuda");
  }

  /// Default parameters on the tests' backend.
  inline cellwise::MultigridParameters
  parameters()
  {
    cellwise::MultigridParameters parameters;
    parameters.backend = backend();
    return parameters;
  }
} // namespace test
