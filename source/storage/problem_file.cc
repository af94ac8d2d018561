#include <cellwise/base/exceptions.h>
#include <cellwise/storage/problem_file.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace cellwise
{
  namespace
  {
    constexpr char          magic[8]         = {'C', 'W', 'P', 'R', 'O', 'B', 'L', 'M'};
    constexpr std::uint64_t fnv_offset_basis = 14695981039346656037ull;
    constexpr std::uint64_t fnv_prime        = 1099511628211ull;
    /// bytes of one cell of a level: box, coordinates, parent, slot,
    /// children, neighbours, flags
    constexpr std::size_t cell_bytes = 6 * 8 + 3 * 4 + 4 + 1 + 8 * 4 + 6 * 4 + 1;
    /// fixed part of the header after magic, version and header size
    constexpr std::uint32_t header_bytes = 4 + 4 + 3 * 4 + 1 + 4 + 4;

    bool
    host_is_little_endian()
    {
      const std::uint32_t one = 1;
      unsigned char       first;
      std::memcpy(&first, &one, 1);
      return first == 1;
    }

    void
    check_host(const std::string &filename)
    {
      CELLWISE_CHECK(host_is_little_endian(), "problem file " << filename << ": this machine is big-endian; the format is little-endian");
    }

    /// A binary output file with the running checksum of what was written.
    class Writer
    {
    public:
      explicit Writer(const std::string &filename)
        : filename_(filename)
        , out_(filename, std::ios::binary | std::ios::trunc)
      {
        CELLWISE_CHECK(out_.good(), "problem file " << filename << ": cannot be opened for writing");
      }

      void
      bytes(const void *data, const std::size_t n)
      {
        const auto *p = static_cast<const unsigned char *>(data);
        for (std::size_t i = 0; i < n; ++i)
          hash_ = (hash_ ^ p[i]) * fnv_prime;
        out_.write(static_cast<const char *>(data), static_cast<std::streamsize>(n));
      }

      template <typename T>
      void
      value(const T v)
      {
        static_assert(std::is_arithmetic_v<T>);
        bytes(&v, sizeof(T));
      }

      void
      finish()
      {
        const std::uint64_t checksum = hash_;
        out_.write(reinterpret_cast<const char *>(&checksum), sizeof(checksum));
        out_.flush();
        CELLWISE_CHECK(out_.good(), "problem file " << filename_ << ": writing failed (disk full or not writable)");
        out_.close();
        CELLWISE_CHECK(!out_.fail(), "problem file " << filename_ << ": closing failed");
      }

    private:
      std::string   filename_;
      std::ofstream out_;
      std::uint64_t hash_ = fnv_offset_basis;
    };

    /// A binary input file that knows how many bytes are left and the running
    /// checksum of what was read.
    class Reader
    {
    public:
      explicit Reader(const std::string &filename)
        : filename_(filename)
        , in_(filename, std::ios::binary)
      {
        CELLWISE_CHECK(in_.good(), "problem file " << filename << ": cannot be opened for reading");
        in_.seekg(0, std::ios::end);
        const std::streamoff size = in_.tellg();
        in_.seekg(0, std::ios::beg);
        CELLWISE_CHECK(size >= 0 && in_.good(), "problem file " << filename << ": cannot determine its size");
        left_ = static_cast<std::uint64_t>(size);
      }

      const std::string &
      name() const
      {
        return filename_;
      }

      /// Bytes left before the checksum.
      std::uint64_t
      payload_left() const
      {
        return left_ >= 8 ? left_ - 8 : 0;
      }

      void
      bytes(void *data, const std::size_t n)
      {
        CELLWISE_CHECK(n <= payload_left(), "problem file " << filename_ << ": truncated (" << left_ << " bytes left where "
                                                            << n << " more were expected before the checksum)");
        in_.read(static_cast<char *>(data), static_cast<std::streamsize>(n));
        CELLWISE_CHECK(in_.good(), "problem file " << filename_ << ": read error");
        const auto *p = static_cast<const unsigned char *>(data);
        for (std::size_t i = 0; i < n; ++i)
          hash_ = (hash_ ^ p[i]) * fnv_prime;
        left_ -= n;
      }

      template <typename T>
      T
      value()
      {
        static_assert(std::is_arithmetic_v<T>);
        T v;
        bytes(&v, sizeof(T));
        return v;
      }

      /// A count of items of @p item_bytes each that must fit into the bytes
      /// left (so that a corrupt count never becomes a huge allocation).
      std::uint32_t
      count(const std::size_t item_bytes, const char *what)
      {
        const std::uint32_t n = value<std::uint32_t>();
        CELLWISE_CHECK(item_bytes == 0 || n <= payload_left() / item_bytes,
                       "problem file " << filename_ << ": " << what << " " << n << " do not fit into the " << payload_left()
                                       << " bytes left (truncated or corrupt file)");
        return n;
      }

      void
      finish()
      {
        CELLWISE_CHECK(left_ == 8, "problem file " << filename_ << ": " << (left_ < 8 ? "truncated" : "has trailing bytes")
                                                   << " (" << left_ << " bytes after the data, the checksum takes 8)");
        std::uint64_t stored = 0;
        in_.read(reinterpret_cast<char *>(&stored), sizeof(stored));
        CELLWISE_CHECK(in_.good(), "problem file " << filename_ << ": read error");
        CELLWISE_CHECK(stored == hash_, "problem file " << filename_ << ": checksum mismatch (the file is corrupt)");
      }

    private:
      std::string   filename_;
      std::ifstream in_;
      std::uint64_t left_ = 0;
      std::uint64_t hash_ = fnv_offset_basis;
    };

    void
    write_vector(Writer &out, const CellVector<double> &v)
    {
      out.value<std::uint32_t>(v.n_cells());
      out.value<std::uint32_t>(v.degree());
      // cell-contiguous storage is the file's order: no padding to skip
      out.bytes(v.data(), static_cast<std::size_t>(v.n_cells()) * v.dofs_per_cell() * sizeof(double));
    }

    CellVector<double>
    read_vector(Reader &in, const unsigned int n_cells, const unsigned int degree, const char *what)
    {
      const std::uint32_t cells = in.value<std::uint32_t>();
      const std::uint32_t p     = in.value<std::uint32_t>();
      CELLWISE_CHECK(cells == n_cells && p == degree, "problem file " << in.name() << ": the " << what << " has " << cells
                                                                      << " cells of degree " << p << ", the problem "
                                                                      << n_cells << " of degree " << degree);
      const std::size_t bytes = static_cast<std::size_t>(cells) * (p + 1) * (p + 1) * (p + 1) * sizeof(double);
      CELLWISE_CHECK(bytes <= in.payload_left(), "problem file " << in.name() << ": truncated in the " << what);
      CellVector<double> v(cells, p);
      in.bytes(v.data(), bytes);
      return v;
    }

    /// The most mapping degree a file may carry (deal.II's MappingQ(k) of
    /// the elements the solvers take).
    constexpr std::uint32_t max_mapping_degree = 8;
    /// bytes of one skeleton face: cell, face, neighbour, its face, orientation
    constexpr std::size_t skeleton_face_bytes = 4 + 1 + 4 + 1 + 1;

    /// The cell mapping of a level: its degree (0: box cells), then the
    /// (k+1)^3 nodes of every cell, x, y, z each.
    void
    write_mapping(Writer &out, const Level &level)
    {
      out.value<std::uint32_t>(level.mapping.degree);
      for (std::size_t i = 0; i < level.mapping.nodes.size(); ++i)
        for (unsigned int d = 0; d < 3; ++d)
          out.value<double>(level.mapping.nodes[i][d]);
    }

    void
    read_mapping(Reader &in, Level &level)
    {
      const std::uint32_t degree = in.value<std::uint32_t>();
      CELLWISE_CHECK(degree <= max_mapping_degree, "problem file " << in.name() << ": a level's cell mapping has degree " << degree
                                                                   << ", at most " << max_mapping_degree << " is read (corrupt file)");
      level.mapping.degree = degree;
      if (degree == 0)
        return;
      const std::size_t per_cell = level.mapping.nodes_per_cell();
      CELLWISE_CHECK(double(level.n_cells()) * per_cell * 3 * sizeof(double) <= double(in.payload_left()),
                     "problem file " << in.name() << ": the nodes of a level's cell mapping do not fit into the "
                                     << in.payload_left() << " bytes left (truncated or corrupt file)");
      level.mapping.nodes.resize(level.n_cells() * per_cell);
      for (std::size_t i = 0; i < level.mapping.nodes.size(); ++i)
        for (unsigned int d = 0; d < 3; ++d)
          {
            const double x = in.value<double>();
            CELLWISE_CHECK(std::isfinite(x), "problem file " << in.name() << ": a node of cell " << i / per_cell
                                                             << "'s mapping is " << x << " (corrupt file)");
            level.mapping.nodes[i][d] = x;
          }
    }

    /// The skeleton faces of a level (unstructured coarse meshes), as
    /// Level::skeleton_faces lists them; the mask follows from them.
    void
    write_skeleton(Writer &out, const Level &level)
    {
      out.value<std::uint32_t>(static_cast<std::uint32_t>(level.skeleton_faces.size()));
      for (const SkeletonFace &face : level.skeleton_faces)
        {
          out.value<std::uint32_t>(face.cell);
          out.value<std::uint8_t>(face.face);
          out.value<std::int32_t>(face.neighbor);
          out.value<std::uint8_t>(face.neighbor_face);
          out.value<std::uint8_t>(face.orientation);
        }
    }

    /// Reads the skeleton faces and checks what the DSS indexes with: each
    /// face names a cell, a face, its neighbour in the neighbour table, the
    /// neighbour's face and an orientation; no face twice; and each is
    /// listed from the other side too, with the inverse orientation.
    void
    read_skeleton(Reader &in, Level &level)
    {
      const std::uint32_t count = in.count(skeleton_face_bytes, "skeleton faces");
      const unsigned int  n     = level.n_cells();
      level.skeleton_faces.resize(count);
      if (count > 0)
        {
          level.skeleton_mask.resize(n);
          std::fill(level.skeleton_mask.begin(), level.skeleton_mask.end(), std::uint8_t(0));
        }
      auto corrupt = [&](const unsigned int k, const char *what) {
        return "problem file " + in.name() + ": skeleton face " + std::to_string(k) + " " + what + " (corrupt file)";
      };
      for (unsigned int k = 0; k < count; ++k)
        {
          SkeletonFace &face = level.skeleton_faces[k];
          face.cell          = in.value<std::uint32_t>();
          face.face          = in.value<std::uint8_t>();
          face.neighbor      = in.value<std::int32_t>();
          face.neighbor_face = in.value<std::uint8_t>();
          face.orientation   = in.value<std::uint8_t>();
          CELLWISE_CHECK(face.cell < n && face.face < 6 && face.neighbor >= 0 && unsigned(face.neighbor) < n &&
                           face.neighbor_face < 6 && face.orientation < 8,
                         corrupt(k, "names a cell, face or orientation that does not exist"));
          CELLWISE_CHECK(level.neighbors[face.cell][face.face] == face.neighbor,
                         corrupt(k, "does not agree with the neighbour table"));
          CELLWISE_CHECK(!((level.skeleton_mask[face.cell] >> face.face) & 1), corrupt(k, "is listed twice"));
          level.skeleton_mask[face.cell] |= std::uint8_t(1u << face.face);
        }
      // every face from the other side: the node (a, b) of one side is the
      // node oriented_face_point(...) of the other, and back again
      std::unordered_map<std::uint64_t, const SkeletonFace *> by_side;
      for (const SkeletonFace &face : level.skeleton_faces)
        by_side.emplace(std::uint64_t(face.cell) * 6 + face.face, &face);
      for (unsigned int k = 0; k < count; ++k)
        {
          const SkeletonFace &face = level.skeleton_faces[k];
          const auto          it   = by_side.find(std::uint64_t(face.neighbor) * 6 + face.neighbor_face);
          CELLWISE_CHECK(it != by_side.end() && it->second->neighbor == int(face.cell) && it->second->neighbor_face == face.face,
                         corrupt(k, "is not listed from the neighbour's side"));
          const unsigned int p = 2; // three nodes per face axis tell every orientation apart
          for (unsigned int b = 0; b <= p; ++b)
            for (unsigned int a = 0; a <= p; ++a)
              {
                const auto there = oriented_face_point(face.orientation, a, b, p);
                const auto back  = oriented_face_point(it->second->orientation, there[0], there[1], p);
                CELLWISE_CHECK(back[0] == a && back[1] == b, corrupt(k, "and its other side have orientations that are not inverse"));
              }
        }
    }

    void
    check_link(const bool ok, const Reader &in, const unsigned int level, const unsigned int cell, const char *what)
    {
      CELLWISE_CHECK(ok, "problem file " << in.name() << ": level " << level << " cell " << cell << " has an invalid " << what
                                         << " (corrupt file)");
    }

    /// The links of every cell point at cells that exist, and parent and
    /// child agree: what the solvers index with.
    void
    check_hierarchy(const Reader &in, const LevelHierarchy &h)
    {
      for (unsigned int l = 0; l < h.n_levels(); ++l)
        {
          const Level       &level    = h.levels[l];
          const unsigned int n        = level.n_cells();
          const unsigned int n_coarse = l > 0 ? h.levels[l - 1].n_cells() : 0;
          const unsigned int n_fine   = l + 1 < h.n_levels() ? h.levels[l + 1].n_cells() : 0;
          for (unsigned int c = 0; c < n; ++c)
            {
              check_link(l == 0 ? level.parent[c] == -1 : level.parent[c] >= 0 && unsigned(level.parent[c]) < n_coarse, in, l, c,
                         "parent");
              check_link(level.child_slot[c] < 8, in, l, c, "child slot");
              if (l > 0)
                check_link(h.levels[l - 1].children[level.parent[c]][level.child_slot[c]] == int(c), in, l, c, "parent link");
              for (unsigned int slot = 0; slot < 8; ++slot)
                {
                  const int child = level.children[c][slot];
                  check_link(child == -1 || (child >= 0 && unsigned(child) < n_fine), in, l, c, "child");
                  if (child >= 0)
                    check_link(h.levels[l + 1].parent[child] == int(c) && h.levels[l + 1].child_slot[child] == slot, in, l, c,
                               "child link");
                }
              for (const int neighbor : level.neighbors[c])
                check_link(neighbor < int(n) && neighbor >= std::numeric_limits<int>::min() + 2, in, l, c, "neighbour");
              check_link((level.flags[c] & ~(cell_flags::active | cell_flags::refined | cell_flags::ghost)) == 0, in, l, c, "flag");
              for (unsigned int d = 0; d < 3; ++d)
                check_link(std::isfinite(level.boxes[c].lower[d]) && level.boxes[c].size[d] > 0, in, l, c, "box");
            }
        }
    }
  } // namespace



  void
  write_problem_file(const std::string &filename, const Problem &problem)
  {
    check_host(filename);
    const LevelHierarchy &h = problem.hierarchy;
    CELLWISE_CHECK(h.n_levels() > 0, "write_problem_file: the hierarchy is empty");
    const unsigned int n_vector_cells = problem.locally_refined ? h.n_active_cells() : h.levels.back().n_cells();
    for (const CellVector<double> *v : {&problem.rhs, &problem.solution})
      CELLWISE_CHECK(v->n_cells() == n_vector_cells && v->degree() == problem.degree,
                     "write_problem_file: a vector has " << v->n_cells() << " cells of degree " << v->degree() << ", the problem "
                                                         << n_vector_cells << " of degree " << problem.degree);
    CELLWISE_CHECK(problem.description.find('\n') == std::string::npos, "write_problem_file: the description must be one line");

    Writer out(filename);
    out.bytes(magic, sizeof(magic));
    out.value<std::uint32_t>(problem_file_version);
    out.value<std::uint32_t>(header_bytes);
    out.value<std::uint32_t>(problem.degree);
    out.value<std::uint32_t>(h.n_levels());
    for (const unsigned int s : h.coarse_subdivisions)
      out.value<std::uint32_t>(s);
    out.value<std::uint8_t>(problem.locally_refined ? 1 : 0);
    out.value<std::uint32_t>(static_cast<std::uint32_t>(problem.dirichlet_ids.size()));
    out.value<std::uint32_t>(static_cast<std::uint32_t>(problem.description.size()));
    for (const unsigned int id : problem.dirichlet_ids)
      out.value<std::uint32_t>(id);
    out.bytes(problem.description.data(), problem.description.size());

    for (const Level &level : h.levels)
      {
        const std::size_t n = level.n_cells();
        CELLWISE_CHECK(level.mapping.empty() || level.mapping.nodes.size() == n * level.mapping.nodes_per_cell(),
                       "write_problem_file: a level's mapping of degree " << level.mapping.degree << " has "
                                                                          << level.mapping.nodes.size() << " nodes for " << n
                                                                          << " cells");
        CELLWISE_CHECK(!level.has_skeleton() || level.skeleton_mask.size() == n,
                       "write_problem_file: a level's skeleton mask does not have one entry per cell");
        CELLWISE_CHECK(level.coordinates.size() == n && level.parent.size() == n && level.child_slot.size() == n &&
                         level.children.size() == n && level.neighbors.size() == n && level.flags.size() == n,
                       "write_problem_file: a level's tables do not all have one entry per cell");
        out.value<std::uint32_t>(level.n_cells());
        out.value<std::uint32_t>(level.n_owned_cells);
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          {
            for (unsigned int d = 0; d < 3; ++d)
              out.value<double>(level.boxes[c].lower[d]);
            for (unsigned int d = 0; d < 3; ++d)
              out.value<double>(level.boxes[c].size[d]);
            for (unsigned int d = 0; d < 3; ++d)
              out.value<std::int32_t>(level.coordinates[c][d]);
            out.value<std::int32_t>(level.parent[c]);
            out.value<std::uint8_t>(level.child_slot[c]);
            for (const int child : level.children[c])
              out.value<std::int32_t>(child);
            for (const int neighbor : level.neighbors[c])
              out.value<std::int32_t>(neighbor);
            out.value<std::uint8_t>(level.flags[c]);
          }
        write_mapping(out, level);
        write_skeleton(out, level);
      }
    write_vector(out, problem.rhs);
    write_vector(out, problem.solution);
    const std::vector<double> &a = problem.cell_coefficients;
    CELLWISE_CHECK(a.empty() || a.size() == n_vector_cells,
                   "write_problem_file: " << a.size() << " coefficient values for " << n_vector_cells << " cells");
    for (const double value : a)
      CELLWISE_CHECK(std::isfinite(value) && value > 0, "write_problem_file: a coefficient value is " << value);
    // the file's coefficient is looked up by the position of a point in the
    // lattice of box cells (cell_coefficient_function)
    CELLWISE_CHECK(a.empty() || h.levels.back().mapping.empty(),
                   "write_problem_file: a coefficient per cell is carried for meshes of box cells only so far, not with a "
                   "cell mapping (curved or unstructured meshes)");
    out.value<std::uint32_t>(static_cast<std::uint32_t>(a.size()));
    out.bytes(a.data(), a.size() * sizeof(double));
    out.finish();
  }



  Problem
  read_problem_file(const std::string &filename)
  {
    check_host(filename);
    Reader in(filename);
    char   file_magic[sizeof(magic)] = {};
    CELLWISE_CHECK(in.payload_left() >= sizeof(magic) + 8, "problem file " << filename << ": too short to be a cellwise problem file");
    in.bytes(file_magic, sizeof(file_magic));
    CELLWISE_CHECK(std::memcmp(file_magic, magic, sizeof(magic)) == 0,
                   "problem file " << filename << ": not a cellwise problem file (no CWPROBLM magic at its start)");
    const std::uint32_t version = in.value<std::uint32_t>();
    CELLWISE_CHECK(version >= 1 && version <= problem_file_version,
                   "problem file " << filename << ": format version " << version << ", this build reads versions 1 to "
                                   << problem_file_version);
    const std::uint32_t header = in.value<std::uint32_t>();
    CELLWISE_CHECK(header == header_bytes, "problem file " << filename << ": header of " << header << " bytes, version "
                                                           << version << " has " << header_bytes << " (corrupt file)");

    Problem problem;
    problem.degree                = in.value<std::uint32_t>();
    const std::uint32_t n_levels  = in.count(8, "levels");
    auto               &h         = problem.hierarchy;
    for (unsigned int &s : h.coarse_subdivisions)
      s = in.value<std::uint32_t>();
    const std::uint8_t refined    = in.value<std::uint8_t>();
    const std::uint32_t n_ids     = in.count(4, "Dirichlet ids");
    const std::uint32_t n_text    = in.count(1, "description bytes");
    CELLWISE_CHECK(problem.degree >= 1 && problem.degree <= 8 && n_levels >= 1 && refined <= 1,
                   "problem file " << filename << ": header with degree " << problem.degree << ", " << n_levels
                                   << " levels (corrupt file)");
    problem.locally_refined = refined == 1;
    problem.dirichlet_ids.resize(n_ids);
    for (unsigned int &id : problem.dirichlet_ids)
      id = in.value<std::uint32_t>();
    problem.description.resize(n_text);
    in.bytes(problem.description.data(), n_text);

    h.levels.resize(n_levels);
    for (Level &level : h.levels)
      {
        const std::uint32_t n = in.count(cell_bytes, "cells of a level");
        level.n_owned_cells   = in.value<std::uint32_t>();
        level.boxes.resize(n);
        level.coordinates.resize(n);
        level.parent.resize(n);
        level.child_slot.resize(n);
        level.children.resize(n);
        level.neighbors.resize(n);
        level.flags.resize(n);
        for (unsigned int c = 0; c < n; ++c)
          {
            for (unsigned int d = 0; d < 3; ++d)
              level.boxes[c].lower[d] = in.value<double>();
            for (unsigned int d = 0; d < 3; ++d)
              level.boxes[c].size[d] = in.value<double>();
            for (unsigned int d = 0; d < 3; ++d)
              level.coordinates[c][d] = in.value<std::int32_t>();
            level.parent[c]     = in.value<std::int32_t>();
            level.child_slot[c] = in.value<std::uint8_t>();
            for (int &child : level.children[c])
              child = in.value<std::int32_t>();
            for (int &neighbor : level.neighbors[c])
              neighbor = in.value<std::int32_t>();
            level.flags[c] = in.value<std::uint8_t>();
          }
        if (version >= 3)
          {
            read_mapping(in, level);
            read_skeleton(in, level);
          }
      }
    check_hierarchy(in, h);
    const unsigned int n_vector_cells = problem.locally_refined ? h.n_active_cells() : h.levels.back().n_cells();
    problem.rhs                       = read_vector(in, n_vector_cells, problem.degree, "right-hand side");
    problem.solution                  = read_vector(in, n_vector_cells, problem.degree, "reference solution");
    if (version >= 2)
      {
        const std::uint32_t n_values = in.count(sizeof(double), "coefficient values");
        CELLWISE_CHECK(n_values == 0 || n_values == n_vector_cells, "problem file " << filename << ": " << n_values
                                                                                    << " coefficient values for "
                                                                                    << n_vector_cells << " cells (corrupt file)");
        CELLWISE_CHECK(n_values == 0 || h.levels.back().mapping.empty(),
                       "problem file " << filename << ": a coefficient per cell with a cell mapping (not written by "
                                                      "write_problem_file; corrupt file)");
        problem.cell_coefficients.resize(n_values);
        in.bytes(problem.cell_coefficients.data(), n_values * sizeof(double));
        for (const double value : problem.cell_coefficients)
          CELLWISE_CHECK(std::isfinite(value) && value > 0,
                         "problem file " << filename << ": a coefficient value is " << value << " (corrupt file)");
      }
    in.finish();
    return problem;
  }



  ScalarFunction
  cell_coefficient_function(const Problem &problem)
  {
    CELLWISE_CHECK(!problem.cell_coefficients.empty(), "cell_coefficient_function: the problem has no coefficient");
    const LevelHierarchy &h = problem.hierarchy;
    // The cells of the vectors per level (the finest level, or the active
    // cells of every level in the order of ActiveMesh), keyed by their
    // integer coordinates; a point is found from the finest level down.
    struct LevelLookup
    {
      std::array<double, 3>                     origin{}, size{};
      std::unordered_map<std::uint64_t, double> values;
    };
    const auto key = [](const std::array<int, 3> &c) {
      return (std::uint64_t(c[0]) << 42) | (std::uint64_t(c[1]) << 21) | std::uint64_t(c[2]);
    };
    auto         lookups = std::make_shared<std::vector<LevelLookup>>(h.n_levels());
    unsigned int next    = 0;
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      {
        const Level &level = h.levels[l];
        LevelLookup &lookup = (*lookups)[l];
        if (level.n_cells() > 0)
          for (unsigned int d = 0; d < 3; ++d)
            {
              lookup.size[d]   = level.boxes[0].size[d];
              lookup.origin[d] = level.boxes[0].lower[d] - level.coordinates[0][d] * lookup.size[d];
            }
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          {
            const bool holds_value = problem.locally_refined ? level.is_active(c) : l + 1 == h.n_levels();
            if (!holds_value)
              continue;
            for (unsigned int d = 0; d < 3; ++d)
              CELLWISE_CHECK(level.coordinates[c][d] >= 0 && std::size_t(level.coordinates[c][d]) < max_cells_per_axis &&
                               std::abs(lookup.origin[d] + level.coordinates[c][d] * lookup.size[d] - level.boxes[c].lower[d]) <=
                                 1e-10 * lookup.size[d] * (1 + std::abs(level.coordinates[c][d])),
                             "cell_coefficient_function: level " << l << " cell " << c << " is not on its level's lattice");
            CELLWISE_CHECK(next < problem.cell_coefficients.size(),
                           "cell_coefficient_function: more cells than coefficient values");
            lookup.values.emplace(key(level.coordinates[c]), problem.cell_coefficients[next++]);
          }
      }
    CELLWISE_CHECK(next == problem.cell_coefficients.size(),
                   "cell_coefficient_function: " << problem.cell_coefficients.size() << " coefficient values for " << next
                                                 << " cells");
    return [lookups, key](const Point &x) {
      for (auto level = lookups->rbegin(); level != lookups->rend(); ++level)
        {
          if (level->values.empty())
            continue;
          std::array<int, 3> c;
          for (unsigned int d = 0; d < 3; ++d)
            c[d] = static_cast<int>(std::floor((x[d] - level->origin[d]) / level->size[d]));
          if (c[0] < 0 || c[1] < 0 || c[2] < 0)
            continue;
          const auto found = level->values.find(key(c));
          if (found != level->values.end())
            return found->second;
        }
      CELLWISE_CHECK(false, "cell_coefficient_function: no cell of the problem contains the point (" << x[0] << ", " << x[1]
                                                                                                   << ", " << x[2] << ")");
      return 0.;
    };
  }
} // namespace cellwise
