// DistributedDss on device vectors (storage/mpi_distributed_dss.h): per axis
// pass, the face layers of the host's lists travel through a device
// EntryExchange (packed and unpacked by device kernels; device or pinned
// host buffers) while the device's axis pass sums the pairs of owned cells,
// and a second launch sums the pairs that touch a ghost. The same
// lists and the same pairs as on the host, so the owned values equal the
// serial device DSS's bit for bit. Built into cellwise::mpi only with the
// CUDA backend.

#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/mpi_cuda_entry_exchange.h>
#include <cellwise/storage/mpi_distributed_dss.h>

#include <memory>

namespace cellwise
{
  struct DistributedDss::DeviceState
  {
    explicit DeviceState(const Level &level)
      : level(level)
    {}
    cuda::LevelData                                    level;
    std::array<std::unique_ptr<cuda::EntryExchange>, 3> passes;
  };

  template <typename Number, typename Layout>
  void
  DistributedDss::apply(CellVector<Number, MemorySpace::CUDA, Layout> &v, const DssMode mode) const
  {
    check_vector(v.n_cells(), v.degree());
    CELLWISE_CHECK(layers_.n_layers == 1, "DistributedDss::apply: the device axis passes sum the one trace layer of FE_Q; "
                                          "the two Hermite layers across ranks are host-only so far");
    if (!device_)
      {
        auto state = std::make_shared<DeviceState>(local_.level);
        for (unsigned int d = 0; d < 3; ++d)
          state->passes[d] = std::make_unique<cuda::EntryExchange>(send_entries_[d], receive_entries_[d],
                                                                   "the face layers of the DSS across ranks");
        device_ = std::move(state);
      }
    for (unsigned int d = 0; d < 3; ++d)
      {
        if (!exchanges_in_pass(d)) // nothing to overlap: the whole pass in one launch
          {
            cuda::dss_axis_pass(device_->level, v, mode, d);
            continue;
          }
        {
          // the pairs of owned cells queued on the device while the face
          // layers travel (the timer counts the host's time: the exchange
          // and the launch)
          const ExchangeTimer      timer;
          std::vector<MPI_Request> requests;
          device_->passes[d]->exchange(
            v, [&](const void *send, void *receive) { post_pass(d, send, receive, sizeof(Number), requests); },
            [&] { cuda::dss_axis_pass(device_->level, v, mode, d, owned_pairs()); }, [&] { wait_pass(requests); });
        }
        cuda::dss_axis_pass(device_->level, v, mode, d, pairs_touching_ghosts());
      }
  }

#define CELLWISE_INSTANTIATE(Number, Layout) \
  template void DistributedDss::apply(CellVector<Number, MemorySpace::CUDA, Layout> &, DssMode) const;
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
