// A user's program built against the installed cellwise: the Laplace operator
// applied to the constant function gives zero (constants are in its kernel),
// so the pairing of A 1 with 1 must vanish.
#include <cellwise/mesh/box_builder.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cell_vector.h>

#include <cmath>
#include <iostream>

int
main()
{
  const cellwise::LevelHierarchy hierarchy = cellwise::make_box_hierarchy(cellwise::BoxDescription{}, 2);
  const cellwise::Level         &finest    = hierarchy.level(hierarchy.max_level());

  const unsigned int                     degree = 2;
  const cellwise::LaplaceOperator<double> laplace(finest, degree);

  cellwise::CellVector<double> ones(laplace.n_cells(), degree);
  ones.fill(1.0);
  cellwise::CellVector<double> result(laplace.n_cells(), degree);
  laplace.vmult(result, ones);

  const double value = result.dot(ones);
  std::cout << "consumer: " << laplace.n_cells() << " cells, degree " << degree << ", <A 1, 1> = " << value
            << std::endl;
  if (!(std::abs(value) <= 1e-10))
    {
      std::cerr << "consumer: FAILED, expected |<A 1, 1>| <= 1e-10" << std::endl;
      return 1;
    }
  std::cout << "consumer: OK" << std::endl;
  return 0;
}
