// The backend of the deal.II tests' front-door solves: host, or the device
// where CELLWISE_TEST_BACKEND=cuda (scripts/run-bundled-dealii-tests.sh runs
// them so on a GPU node). The tests' expected outputs are the same on both:
// what a solve reports (iterations, agreement with deal.II) must not depend
// on where it runs.
#pragma once

#include <cellwise/base/exceptions.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/multigrid/multigrid_parameters.h>

#include <cstdlib>
#include <string>

namespace test
{
  /// The backend CELLWISE_TEST_BACKEND names; throws cellwise::Error with
  /// the reason where it cannot run here (ctest's cuda variants skip on
  /// that message: tests/dealii/CMakeLists.txt). The tests call it first
  /// thing, so that they stop before any work.
  inline cellwise::Backend
  backend()
  {
    const char *value = std::getenv("CELLWISE_TEST_BACKEND");
    if (value == nullptr || std::string(value).empty() || std::string(value) == "host")
      return cellwise::Backend::host;
    if (std::string(value) != "cuda")
      throw cellwise::Error(std::string("CELLWISE_TEST_BACKEND=") + value + ": take host or cuda");
    const std::string reason = cellwise::backend_unavailable_reason(cellwise::Backend::cuda);
    if (!reason.empty())
      throw cellwise::Error("CELLWISE_TEST_BACKEND=cuda: " + reason);
    return cellwise::Backend::cuda;
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
