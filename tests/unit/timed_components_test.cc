// The timing decorators of multigrid/timed_components.h: each call reaches
// the wrapped component with the same arguments and is bracketed by one
// begin/end pair of its part, nested scopes close innermost first, and an
// exception from the component still closes its scope.

#include <cellwise/multigrid/timed_components.h>
#include <cellwise/storage/cell_vector.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace cellwise;

namespace
{
  using Vector = CellVector<double>;

  /// Records "begin X" and "end" in call order.
  class RecordingTimer : public ComponentTimer
  {
  public:
    std::vector<std::string> events;
    void
    begin(const std::string &part) override
    {
      events.push_back("begin " + part);
    }
    void
    end() override
    {
      events.push_back("end");
    }
  };

  /// dst = 2 src; residual dst = b − 2 u; throws on a 0-cell vector.
  class DoublingOperator : public LevelOperator<Vector>
  {
  public:
    RecordingTimer *timer = nullptr;
    void
    vmult(Vector &dst, const Vector &src) const override
    {
      if (src.n_cells() == 0)
        throw std::runtime_error("empty");
      timer->events.push_back("vmult");
      dst.reinit(src);
      dst.equ(2., src);
    }
    void
    residual(Vector &dst, const Vector &b, const Vector &u) const override
    {
      timer->events.push_back("residual");
      dst = b;
      dst.add(-2., u);
    }
  };

  /// z = inner(r) + r, through the timed operator: a nested part.
  class AddingPreconditioner : public Preconditioner<Vector>
  {
  public:
    explicit AddingPreconditioner(const LevelOperator<Vector> &op)
      : op_(op)
    {}
    void
    vmult(Vector &z, const Vector &r) const override
    {
      op_.vmult(z, r);
      z.add(1., r);
    }

  private:
    const LevelOperator<Vector> &op_;
  };
} // namespace

TEST(TimedComponents, forward_calls_inside_one_scope_each)
{
  RecordingTimer timer;
  auto           op = std::make_shared<DoublingOperator>();
  op->timer         = &timer;
  const TimedLevelOperator<Vector> timed(op, timer, "operator");

  Vector u(3, 2), b(3, 2), dst;
  u(1, 4) = 1.5;
  b(2, 0) = 4.;
  timed.vmult(dst, u);
  EXPECT_EQ(dst(1, 4), 3.);
  timed.residual(dst, b, u);
  EXPECT_EQ(dst(1, 4), -3.);
  EXPECT_EQ(dst(2, 0), 4.);
  EXPECT_EQ(timer.events, (std::vector<std::string>{"begin operator", "vmult", "end", "begin operator", "residual", "end"}));
}

TEST(TimedComponents, nested_scopes_and_exceptions)
{
  RecordingTimer timer;
  auto           op = std::make_shared<DoublingOperator>();
  op->timer         = &timer;
  const TimedLevelOperator<Vector>  timed_op(op, timer, "operator");
  const TimedPreconditioner<Vector> timed_preconditioner(std::make_shared<AddingPreconditioner>(timed_op), timer, "cycle");

  Vector r(2, 1), z;
  r(0, 0) = 1.;
  timed_preconditioner.vmult(z, r);
  EXPECT_EQ(z(0, 0), 3.);
  EXPECT_EQ(timer.events, (std::vector<std::string>{"begin cycle", "begin operator", "vmult", "end", "end"}));

  timer.events.clear();
  Vector empty;
  EXPECT_THROW(timed_preconditioner.vmult(z, empty), std::runtime_error);
  EXPECT_EQ(timer.events, (std::vector<std::string>{"begin cycle", "begin operator", "end", "end"}));
}

namespace
{
  /// A preconditioner with a stationary step of its own, which records its calls.
  class SteppingPreconditioner : public Preconditioner<Vector>
  {
  public:
    explicit SteppingPreconditioner(RecordingTimer &timer)
      : timer_(timer)
    {}
    void
    vmult(Vector &z, const Vector &r) const override
    {
      timer_.events.push_back("vmult");
      z = r;
    }
    std::unique_ptr<StationaryStep<Vector>>
    make_stationary_step() const override
    {
      return std::make_unique<Step>(timer_);
    }

  private:
    class Step : public StationaryStep<Vector>
    {
    public:
      explicit Step(RecordingTimer &timer)
        : timer_(timer)
      {}
      double
      apply(const Vector &r) override
      {
        timer_.events.push_back("apply");
        kept_ = r;
        return 7.;
      }
      void
      add_correction(Vector &u) const override
      {
        timer_.events.push_back("add_correction");
        u.add(2., kept_);
      }
      void
      update_direction(Vector &p, const double beta, const bool first) const override
      {
        timer_.events.push_back("update_direction");
        if (first)
          p = kept_;
        else
          p.sadd(beta, 2., kept_);
      }

    private:
      RecordingTimer &timer_;
      Vector          kept_;
    };
    RecordingTimer &timer_;
  };
} // namespace

TEST(TimedComponents, stationary_step_is_the_inner_one_in_two_parts)
{
  RecordingTimer                    timer;
  const TimedPreconditioner<Vector> timed(std::make_shared<SteppingPreconditioner>(timer), timer, "conversions",
                                          "correction update (widened)");
  const auto step = timed.make_stationary_step();
  Vector     r(2, 1), u(2, 1);
  r(1, 3) = 1.5;
  EXPECT_EQ(step->apply(r), 7.);
  step->add_correction(u);
  EXPECT_EQ(u(1, 3), 3.);
  EXPECT_EQ(timer.events, (std::vector<std::string>{"begin conversions", "apply", "end", "begin correction update (widened)",
                                                    "add_correction", "end"}));

  // CG's search direction: the inner step's, timed as the correction part
  timer.events.clear();
  Vector p;
  step->update_direction(p, 0., true);
  EXPECT_EQ(p(1, 3), 1.5);
  step->update_direction(p, 0.5, false);
  EXPECT_EQ(p(1, 3), 0.75 + 3.);
  EXPECT_EQ(timer.events, (std::vector<std::string>{"begin correction update (widened)", "update_direction", "end",
                                                    "begin correction update (widened)", "update_direction", "end"}));

  // the update with the next residual: one part, the inner step's default
  // (its update, then the operator's residual) inside it
  timer.events.clear();
  DoublingOperator A;
  A.timer = &timer;
  Vector b(2, 1), mask(2, 1), next(2, 1);
  mask.fill(1.);
  step->add_correction_and_residual(u, A, b, mask, next);
  EXPECT_EQ(u(1, 3), 6.);
  EXPECT_EQ(next(1, 3), -12.);
  EXPECT_EQ(timer.events, (std::vector<std::string>{"begin correction update (widened) and the next residual",
                                                    "add_correction", "residual", "end"}));

  // CG's fused calls, each one part around the inner step's (here its
  // defaults: u += α p then the direction; r += a q then apply)
  timer.events.clear();
  Vector iterate = u, residual = r, q(2, 1);
  step->add_step_and_update_direction(iterate, 2., p, 0.5); // iterate += 2 p, p ← 0.5 p + 2 kept
  EXPECT_EQ(iterate(1, 3), 6. + 2. * 3.75);
  EXPECT_EQ(p(1, 3), 0.5 * 3.75 + 3.);
  q(1, 3) = 4.;
  EXPECT_EQ(step->update_residual_and_apply(residual, -0.25, q), 7.);
  EXPECT_EQ(residual(1, 3), 0.5);
  EXPECT_EQ(timer.events, (std::vector<std::string>{"begin correction update (widened) with the iterate", "update_direction", "end",
                                                    "begin conversions with the residual update", "apply", "end"}));

  // a preconditioner without a step of its own: vmult and the pairing in the
  // part, u += z in the default correction part
  timer.events.clear();
  auto           op = std::make_shared<DoublingOperator>();
  op->timer         = &timer;
  const TimedPreconditioner<Vector> plain(std::make_shared<AddingPreconditioner>(*op), timer, "cycle");
  const auto                        plain_step = plain.make_stationary_step();
  EXPECT_EQ(plain_step->apply(r), 1.5 * 4.5); // z = 2 r + r
  u = 0.;
  plain_step->add_correction(u);
  EXPECT_EQ(u(1, 3), 4.5);
  EXPECT_EQ(timer.events, (std::vector<std::string>{"begin cycle", "vmult", "end", "begin correction update", "end"}));
}
