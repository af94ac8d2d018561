// CellHaloExchange on device vectors (storage/mpi_cell_halo_exchange.h): the
// host's lists of cells (or patch-interior nodes) as entry lists of a
// device EntryExchange, made at the first device apply() and again for
// another degree. Built into cellwise::mpi only with the CUDA backend.

#include <cellwise/storage/mpi_cell_halo_exchange.h>
#include <cellwise/storage/mpi_cuda_entry_exchange.h>

#include <memory>

namespace cellwise
{
  struct CellHaloExchange::DeviceState
  {
    unsigned int                         degree = 0;
    std::unique_ptr<cuda::EntryExchange> exchange;
  };

  template <typename Number, typename Layout>
  void
  CellHaloExchange::apply(CellVector<Number, MemorySpace::CUDA, Layout> &v) const
  {
    const ExchangeTimer timer;
    check_apply(v.n_cells(), v.degree(), sizeof(Number));
    if (!device_ || device_->degree != v.degree())
      {
        auto                       state = std::make_shared<DeviceState>();
        std::vector<std::uint64_t> sent, received;
        entry_lists(v.degree(), sent, received);
        state->degree   = v.degree();
        state->exchange = std::make_unique<cuda::EntryExchange>(sent, received, "the cells of a halo exchange");
        device_         = std::move(state);
      }
    const std::size_t n = values_per_cell(v.degree());
    device_->exchange->exchange(v, [&](const void *send, void *receive) { post_and_wait(send, receive, n, sizeof(Number)); });
  }

#define CELLWISE_INSTANTIATE(Number, Layout) \
  template void CellHaloExchange::apply(CellVector<Number, MemorySpace::CUDA, Layout> &) const;
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
