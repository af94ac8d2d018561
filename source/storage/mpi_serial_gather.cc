#include <cellwise/storage/mpi_serial_gather.h>

#include <climits>
#include <string>

namespace cellwise
{
  SerialGather::SerialGather(const LocalLevel &local, const MPI_Comm comm, const unsigned int serial_cells,
                             const unsigned int degree)
    : local_(local)
    , comm_(comm)
    , serial_cells_(serial_cells)
    , degree_(degree)
  {
    const int size = mpi_size(comm);
    const int mine = static_cast<int>(local.n_owned_cells());
    cells_per_rank_.resize(size);
    CELLWISE_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT, cells_per_rank_.data(), 1, MPI_INT, comm));
    cell_offsets_.assign(size, 0);
    long total = 0;
    for (int r = 0; r < size; ++r)
      {
        cell_offsets_[r] = static_cast<int>(total);
        total += cells_per_rank_[r];
      }
    check_collectively(comm, total == long(serial_cells),
                       "SerialGather: the ranks own " + std::to_string(total) + " cells of a level of " +
                         std::to_string(serial_cells));
    const double values = double(total) * (degree + 1) * (degree + 1) * (degree + 1) * sizeof(double);
    check_collectively(comm, values <= double(INT_MAX),
                       "SerialGather: a level of " + std::to_string(serial_cells) +
                         " cells is too large to gather into one vector");
    serial_index_of_gathered_.resize(total);
    CELLWISE_MPI_CHECK(MPI_Allgatherv(local.serial_index.data(), mine, MPI_UNSIGNED, serial_index_of_gathered_.data(),
                                      cells_per_rank_.data(), cell_offsets_.data(), MPI_UNSIGNED, comm));
  }

  template <typename Number, typename Layout>
  void
  SerialGather::gather(const CellVector<Number, MemorySpace::Host, Layout> &local_vector,
                       CellVector<Number, MemorySpace::Host, Layout>       &serial) const
  {
    const ExchangeTimer timer;
    CELLWISE_CHECK(local_vector.n_cells() == local_.level.n_cells() && local_vector.degree() == degree_,
                   "SerialGather: a vector of " << local_vector.n_cells() << " cells of degree " << local_vector.degree()
                                                << " for a local level of " << local_.level.n_cells() << " cells of degree "
                                                << degree_);
    const unsigned int  n       = local_vector.dofs_per_cell();
    const unsigned int  n_owned = local_.n_owned_cells();
    std::vector<Number> owned(std::size_t(n_owned) * n), gathered(serial_index_of_gathered_.size() * n);
    for (unsigned int k = 0; k < n_owned; ++k)
      local_vector.read_cell(k, owned.data() + std::size_t(k) * n);
    // counts in bytes: the set-up checked that the level fits an int
    const int        bytes_per_cell = static_cast<int>(n * sizeof(Number));
    std::vector<int> bytes(cells_per_rank_.size()), offsets(cells_per_rank_.size());
    for (std::size_t r = 0; r < bytes.size(); ++r)
      {
        bytes[r]   = cells_per_rank_[r] * bytes_per_cell;
        offsets[r] = cell_offsets_[r] * bytes_per_cell;
      }
    CELLWISE_MPI_CHECK(MPI_Allgatherv(owned.data(), static_cast<int>(owned.size() * sizeof(Number)), MPI_BYTE,
                                      gathered.data(), bytes.data(), offsets.data(), MPI_BYTE, comm_));
    if (serial.n_cells() != serial_cells_ || serial.degree() != degree_)
      serial.reinit(serial_cells_, degree_);
    for (std::size_t g = 0; g < serial_index_of_gathered_.size(); ++g)
      serial.write_cell(serial_index_of_gathered_[g], gathered.data() + g * n);
  }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                   \
  template void SerialGather::gather(const CellVector<Number, MemorySpace::Host, Layout> &,                    \
                                     CellVector<Number, MemorySpace::Host, Layout> &) const;
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
