#pragma once
// The FE_Q(p) levels for the shared level loop (level_assembly.h): what every
// Lagrange solver decides the same way — which mask a level's smoother and
// the coarse solver work on, Cholesky or the smoother as the coarse solver,
// the finest operator made once, the log line — with the backend's parts
// (HostLagrangeParts here; the device's in cuda_lagrange_parts.h) supplying
// the vectors, operators, smoothers and transfers. Private to
// source/multigrid; no device code.

#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/level_smoothers.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/dirichlet_mask.h>

#include "level_assembly.h"

#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cellwise::internal
{
  /// What a level contributes besides its operator.
  template <typename Vector>
  struct LevelMasks
  {
    /// 1 on the copies the level's smoother may change.
    Vector smoothing;
    /// 1 on the free copies of level 0 for its coarse solver.
    Vector coarse;
  };

  /// The copies a level's smoother may change: all but the Dirichlet ones
  /// (uniform levels), or also not those on the level's refinement edge
  /// (the levels of local smoothing, 003 §5).
  enum class SmoothedCopies
  {
    all_but_dirichlet,
    all_but_dirichlet_and_refinement_edge
  };

  /**
   * The factory of assemble_levels for FE_Q(degree) on @p hierarchy with
   * @p parts of one backend and level kind, which supply
   * - `Vector`, `Operator`, `Cholesky` (constructed from (level, operator,
   *   mask, constant null space), the same arguments on every backend);
   * - `Vector dirichlet_mask(l)` (all ones for the pure Neumann problem),
   *   `Vector free_mask(l)` (make_free_mask's);
   * - `std::shared_ptr<Operator> make_operator(l)`, its set-up timed;
   * - `std::shared_ptr<const LevelSmoother<Vector>> make_smoother(l, op, mask)`;
   * - `std::string level_note(l, op)`: the log line's words after "N cells"
   *   up to the component; `std::string where()`: "" or " (device)";
   * - `void add_transfers(components, operators)`;
   * - `stage(name, work)`: runs work, timed where the backend times its
   *   set-up.
   * @p finest, if given, is the finest level's operator, already made (the
   * outer iteration's); @p mesh, for local smoothing, the active cells
   * (counted in the log); @p kept_masks, if given, receives each level's
   * smoothing mask.
   */
  template <typename Parts>
  class LagrangeLevels
  {
  public:
    using Vector   = typename Parts::Vector;
    using Operator = typename Parts::Operator;
    using Masks    = LevelMasks<Vector>;

    LagrangeLevels(const LevelHierarchy      &hierarchy,
                   const unsigned int         degree,
                   const MultigridParameters &parameters,
                   Parts                     &parts,
                   const SmoothedCopies       smoothed,
                   std::shared_ptr<Operator>  finest     = nullptr,
                   const ActiveMesh          *mesh       = nullptr,
                   std::vector<Vector>       *kept_masks = nullptr)
      : hierarchy_(hierarchy)
      , degree_(degree)
      , parameters_(parameters)
      , parts_(parts)
      , smoothed_(smoothed)
      , finest_(std::move(finest))
      , mesh_(mesh)
      , kept_masks_(kept_masks)
    {}

    Masks
    masks(const unsigned int l)
    {
      Masks masks;
      parts_.stage("level masks", [&] {
        // level 0 covers the domain: it has no refinement edge
        if (smoothed_ == SmoothedCopies::all_but_dirichlet || l == 0)
          masks.smoothing = masks.coarse = parts_.dirichlet_mask(l);
        else
          masks.smoothing = parts_.free_mask(l); // (the coarse mask is level 0's only)
      });
      if (kept_masks_)
        kept_masks_->push_back(masks.smoothing);
      return masks;
    }

    std::shared_ptr<Operator>
    make_operator(const unsigned int l)
    {
      if (finest_ && l + 1 == hierarchy_.n_levels())
        return finest_;
      return parts_.make_operator(l); // (timed by the parts: the general operator by its own stages)
    }

    Vector
    shape(const unsigned int l)
    {
      Vector shape;
      parts_.stage("level vector shapes", [&] { shape = Vector(hierarchy_.level(l).n_cells(), degree_); });
      return shape;
    }

    Described<CoarseSolver<Vector>>
    make_coarse_solver(const std::shared_ptr<Operator> &op, const Masks &masks)
    {
      const Level                    &level = hierarchy_.level(0);
      const CoarseSolverType          type  = coarse_solver_for(parameters_, level, degree_);
      Described<CoarseSolver<Vector>> coarse;
      parts_.stage("coarse solver", [&] {
        if (type == CoarseSolverType::cholesky)
          coarse.component =
            std::make_shared<typename Parts::Cholesky>(level, *op, masks.coarse, parameters_.pure_neumann);
        else
          coarse.component = make_smoother_coarse_solver<Vector>(parameters_, type, op, parts_.make_smoother(0, *op, masks.smoothing),
                                                                 masks.coarse, parameters_.coarse_smoother_applications);
      });
      coarse.description = describe_coarse_solver(parameters_, level, degree_);
      return coarse;
    }

    Described<LevelSmoother<Vector>>
    make_smoother(const unsigned int l, const std::shared_ptr<Operator> &op, const Masks &masks)
    {
      Described<LevelSmoother<Vector>> smoother;
      parts_.stage("smoothers (" + to_string(parameters_.smoother) + ")",
                   [&] { smoother.component = parts_.make_smoother(l, *op, masks.smoothing); });
      smoother.description = "smoother " + to_string(parameters_.smoother);
      return smoother;
    }

    /// "<note><N active, ><what>, FP64|FP32<where>".
    std::string
    log_line(const unsigned int l, const Operator &op, const std::string &what)
    {
      std::ostringstream line;
      line << parts_.level_note(l, op);
      if (mesh_)
        line << std::setw(10) << mesh_->active_cells[l].size() << " active, ";
      line << what << (sizeof(typename Vector::value_type) == 4 ? ", FP32" : ", FP64");
      line << parts_.where();
      return line.str();
    }

    template <typename Components>
    void
    add_transfers(Components &components, const std::vector<std::shared_ptr<Operator>> &operators)
    {
      parts_.stage("transfers", [&] { parts_.add_transfers(components, operators); });
    }

  private:
    const LevelHierarchy      &hierarchy_;
    const unsigned int         degree_;
    const MultigridParameters &parameters_;
    Parts                     &parts_;
    const SmoothedCopies       smoothed_;
    std::shared_ptr<Operator>  finest_;
    const ActiveMesh          *mesh_;
    std::vector<Vector>       *kept_masks_;
  };

  /// The log words of parts whose level line names nothing but the cells
  /// (", " before the component) and where the levels live.
  template <bool on_device>
  struct PlainLevelWords
  {
    template <typename Operator>
    std::string
    level_note(unsigned int, const Operator &) const
    {
      return ", ";
    }

    std::string
    where() const
    {
      return on_device ? " (device)" : "";
    }
  };

  /// The host's parts of FE_Q levels in precision Number, on any level kind
  /// (the host operator takes boxes, mapped cells and unstructured levels).
  template <typename Number>
  class HostLagrangeParts : public PlainLevelWords<false>
  {
  public:
    using Vector   = CellVector<Number>;
    using Operator = LaplaceOperator<Number>;
    using Cholesky = CholeskyCoarseSolver<Number>;

    HostLagrangeParts(const LevelHierarchy &hierarchy, const unsigned int degree, const MultigridParameters &parameters)
      : hierarchy_(hierarchy)
      , degree_(degree)
      , parameters_(parameters)
    {}

    Vector
    dirichlet_mask(const unsigned int l) const
    {
      const Level &level = hierarchy_.level(l);
      if (!parameters_.pure_neumann)
        return make_dirichlet_mask<Number>(level, degree_, parameters_.dirichlet_ids);
      Vector ones(level.n_cells(), degree_);
      ones.fill(Number(1));
      return ones;
    }

    Vector
    free_mask(const unsigned int l) const
    {
      return make_free_mask<Number>(hierarchy_.level(l), degree_, parameters_.dirichlet_ids);
    }

    std::shared_ptr<Operator>
    make_operator(const unsigned int l) const
    {
      return std::make_shared<Operator>(hierarchy_.level(l), degree_, parameters_.coefficient, parameters_.coefficient_evaluation);
    }

    std::shared_ptr<const LevelSmoother<Vector>>
    make_smoother(const unsigned int l, const Operator &op, const Vector &mask) const
    {
      return make_level_smoother(hierarchy_.level(l), op, mask, parameters_);
    }

    template <typename Components>
    void
    add_transfers(Components &components, const std::vector<std::shared_ptr<Operator>> &) const
    {
      components.transfer = std::make_shared<CellTransfer<Number>>(hierarchy_, degree_);
    }

    template <typename Work>
    void
    stage(const std::string &, Work &&work) const
    {
      work();
    }

  private:
    const LevelHierarchy      &hierarchy_;
    const unsigned int         degree_;
    const MultigridParameters &parameters_;
  };

} // namespace cellwise::internal
