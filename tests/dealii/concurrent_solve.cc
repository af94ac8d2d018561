// One cellwise::dealii::MultigridPreconditioner shared by threads (as a
// deal.II program's assembly threads or a task-parallel outer loop would):
// each thread's solve(x, b, control) and vmult give the answers of the same
// call made alone, bit for bit, on a uniform mesh (FP64 and mixed) and a
// locally refined one (FP64). base/work_space_lock.h serializes the calls;
// before it, the threads shared the outer iteration's work vectors and got
// wrong answers or "⟨r, V r⟩ is negative".

#include <cellwise/dealii/multigrid_preconditioner.h>

#include "poisson_problem.h"
#include "test_backend.h"

#include <deal.II/fe/mapping_q1.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace
{
  bool
  same(const test::Vector &a, const test::Vector &b)
  {
    if (a.locally_owned_size() != b.locally_owned_size())
      return false;
    for (unsigned int i = 0; i < a.locally_owned_size(); ++i)
      if (a.local_element(i) != b.local_element(i))
        return false;
    return true;
  }
} // namespace

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  test::backend(); // stops here where the asked backend cannot run
  std::ofstream                            out("output");
  for (const bool locally_refined : {false, true})
    for (const auto precision : {cellwise::Precision::fp64, cellwise::Precision::mixed})
      {
        if (locally_refined && precision == cellwise::Precision::mixed)
          continue; // not built yet (doc/capabilities.md)
        const test::PoissonProblem problem(locally_refined);
        cellwise::MultigridParameters parameters = test::parameters();
        parameters.precision = precision;
        const cellwise::dealii::MultigridPreconditioner preconditioner(dealii::MappingQ1<3>(), problem.dof_handler, parameters);

        // two loads: the problem's, and a scaled and shifted one
        std::vector<test::Vector> loads(2, problem.rhs);
        for (unsigned int i = 0; i < loads[1].locally_owned_size(); ++i)
          loads[1].local_element(i) = 2. * loads[0].local_element(i) + (i % 7) * 1e-3;
        problem.constraints.set_zero(loads[1]);

        const auto solve = [&](const test::Vector &b, test::Vector &x, test::Vector &z, unsigned int &steps) {
          x = problem.new_vector();
          dealii::SolverControl control(100, 1e-10 * b.l2_norm());
          preconditioner.solve(x, b, control);
          steps = control.last_step();
          z     = problem.new_vector();
          preconditioner.vmult(z, b);
        };
        std::vector<test::Vector> x_alone(2), z_alone(2);
        std::vector<unsigned int> steps_alone(2);
        for (unsigned int i = 0; i < 2; ++i)
          solve(loads[i], x_alone[i], z_alone[i], steps_alone[i]);

        constexpr unsigned int   n_threads = 4;
        std::vector<std::string> result(n_threads, "yes");
        std::vector<std::thread> threads;
        for (unsigned int t = 0; t < n_threads; ++t)
          threads.emplace_back([&, t] {
            try
              {
                for (unsigned int round = 0; round < 2; ++round)
                  {
                    const unsigned int i = (t + round) % 2;
                    test::Vector       x, z;
                    unsigned int       steps = 0;
                    solve(loads[i], x, z, steps);
                    if (steps != steps_alone[i] || !same(x, x_alone[i]) || !same(z, z_alone[i]))
                      result[t] = "NO (another answer)";
                  }
              }
            catch (const std::exception &e)
              {
                result[t] = std::string("NO (") + e.what() + ")";
              }
          });
        for (std::thread &thread : threads)
          thread.join();
        out << (locally_refined ? "locally refined" : "uniform") << ", " << cellwise::to_string(precision) << ": "
            << steps_alone[0] << " and " << steps_alone[1] << " CG steps alone" << std::endl;
        for (unsigned int t = 0; t < n_threads; ++t)
          out << "  thread " << t << ": its solves and cycles equal the lone ones: " << result[t] << std::endl;
      }
}
