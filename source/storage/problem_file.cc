#include <cellwise/base/exceptions.h>
#include <cellwise/base/system_memory.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/storage/problem_file.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

    /// What a path that is not a regular file is, for the refusal.
    const char *
    file_kind(const mode_t mode)
    {
      if (S_ISDIR(mode))
        return "a directory";
      if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
      if (S_ISCHR(mode))
        return "a character device";
      if (S_ISBLK(mode))
        return "a block device";
      if (S_ISSOCK(mode))
        return "a socket";
      return "not a regular file";
    }

    /// A binary input file that knows how many bytes are left and the running
    /// checksum of what was read. Only a regular file is read: the path is
    /// looked at with stat() before it is opened, and opened without
    /// blocking and looked at again (fstat) before anything is read, so that a
    /// FIFO without a writer, a directory or a device is refused at once
    /// (open(2) of a FIFO for reading waits for a writer unless O_NONBLOCK).
    class Reader
    {
    public:
      explicit Reader(const std::string &filename)
        : filename_(filename)
      {
        struct stat status;
        if (::stat(filename.c_str(), &status) != 0)
          {
            const int error = errno;
            CELLWISE_CHECK(false, "problem file " << filename << ": cannot be opened for reading (" << std::strerror(error) << ")");
          }
        check_regular(status);
        const int fd = ::open(filename.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
          {
            const int error = errno;
            CELLWISE_CHECK(false, "problem file " << filename << ": cannot be opened for reading (" << std::strerror(error) << ")");
          }
        // the path may have changed between stat and open: what is open counts
        if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode))
          {
            ::close(fd);
            check_regular(status);
            CELLWISE_CHECK(false, "problem file " << filename << ": cannot determine its size");
          }
        const int fd_flags = ::fcntl(fd, F_GETFL);
        if (fd_flags >= 0)
          ::fcntl(fd, F_SETFL, fd_flags & ~O_NONBLOCK); // reads of a regular file block anyway
        in_ = ::fdopen(fd, "rb");
        if (in_ == nullptr)
          {
            ::close(fd);
            CELLWISE_CHECK(false, "problem file " << filename << ": cannot be opened for reading");
          }
        CELLWISE_CHECK(status.st_size >= 0, "problem file " << filename << ": cannot determine its size");
        left_ = static_cast<std::uint64_t>(status.st_size);
      }

      ~Reader()
      {
        if (in_ != nullptr)
          std::fclose(in_);
      }
      Reader(const Reader &)            = delete;
      Reader &operator=(const Reader &) = delete;

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
        raw(data, n);
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
      /// left (so that a corrupt count never becomes a huge allocation) and
      /// be at most @p most.
      std::uint32_t
      count(const std::size_t item_bytes, const char *what, const std::uint64_t most = std::numeric_limits<std::uint32_t>::max())
      {
        const std::uint32_t n = value<std::uint32_t>();
        CELLWISE_CHECK(item_bytes == 0 || n <= payload_left() / item_bytes,
                       "problem file " << filename_ << ": " << what << " " << n << " do not fit into the " << payload_left()
                                       << " bytes left (truncated or corrupt file)");
        CELLWISE_CHECK(n <= most, "problem file " << filename_ << ": " << what << " " << n << " exceed the " << most
                                                  << " a problem file may hold (corrupt file)");
        return n;
      }

      void
      finish()
      {
        CELLWISE_CHECK(left_ == 8, "problem file " << filename_ << ": " << (left_ < 8 ? "truncated" : "has trailing bytes")
                                                   << " (" << left_ << " bytes after the data, the checksum takes 8)");
        std::uint64_t stored = 0;
        raw(&stored, sizeof(stored));
        CELLWISE_CHECK(stored == hash_, "problem file " << filename_ << ": checksum mismatch (the file is corrupt)");
      }

    private:
      /// @p n bytes from the file through the buffer (one fread per 64 KiB,
      /// not per value).
      void
      raw(void *data, const std::size_t n)
      {
        auto       *out  = static_cast<char *>(data);
        std::size_t done = 0;
        while (done < n)
          {
            if (position_ == filled_)
              {
                filled_   = std::fread(buffer_.data(), 1, buffer_.size(), in_);
                position_ = 0;
                CELLWISE_CHECK(filled_ > 0, "problem file " << filename_ << ": read error");
              }
            const std::size_t k = std::min(n - done, filled_ - position_);
            std::memcpy(out + done, buffer_.data() + position_, k);
            position_ += k;
            done += k;
          }
      }

      void
      check_regular(const struct stat &status) const
      {
        CELLWISE_CHECK(S_ISREG(status.st_mode), "problem file " << filename_ << ": is " << file_kind(status.st_mode)
                                                                << ", not a regular file; a problem file is read from a "
                                                                   "regular file only");
      }

      std::string   filename_;
      std::FILE        *in_ = nullptr;
      std::vector<char> buffer_ = std::vector<char>(std::size_t(1) << 16);
      std::size_t       position_ = 0, filled_ = 0;
      std::uint64_t     left_ = 0;
      std::uint64_t     hash_ = fnv_offset_basis;
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
      const std::uint32_t count = in.count(skeleton_face_bytes, "skeleton faces", 6 * std::uint64_t(level.n_cells()));
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

    /// The most levels a file may carry: integer coordinates hold
    /// max_cells_per_axis = 2^21 cells per axis, so level 21 of one coarse
    /// cell per axis is the finest there can be.
    constexpr std::uint32_t max_levels = 22;
    /// The most bytes of the description (one line of text).
    constexpr std::uint32_t max_description_bytes = std::uint32_t(1) << 20;
    /// The most Dirichlet ids of a file.
    constexpr std::uint32_t max_dirichlet_ids = std::uint32_t(1) << 16;

    /// What lies across a face, in words.
    std::string
    describe_neighbor(const int neighbor)
    {
      if (face_neighbor::is_cell(neighbor))
        return "cell " + std::to_string(neighbor);
      if (face_neighbor::is_boundary(neighbor))
        return "boundary id " + std::to_string(face_neighbor::boundary_id(neighbor));
      return "no neighbour of its level (refinement edge)";
    }

    std::string
    describe_position(const std::array<int, 3> &x)
    {
      return "(" + std::to_string(x[0]) + ", " + std::to_string(x[1]) + ", " + std::to_string(x[2]) + ")";
    }

/// A refusal naming where (the file), the level, the cell and what is wrong.
#define CELLWISE_CHECK_CELL(condition, level, cell, message) \
  CELLWISE_CHECK(condition, where << ": level " << (level) << " cell " << (cell) << ": " << message)

    /// Every table of every level has one entry per cell, a level owns all
    /// its cells (a file holds a serial hierarchy), the links point at cells
    /// that exist and parent and child agree, the flags say active (a leaf)
    /// or refined (8 children): what the solvers index with, checked before
    /// anything indexes with it.
    void
    check_links(const LevelHierarchy &h, const std::string &where)
    {
      for (unsigned int l = 0; l < h.n_levels(); ++l)
        {
          const Level &level = h.levels[l];
          const std::size_t n = level.boxes.size();
          CELLWISE_CHECK(n >= 1 && n <= max_cells_per_level,
                         where << ": level " << l << " has " << n << " cells (1.." << max_cells_per_level << " are allowed)");
          CELLWISE_CHECK(level.coordinates.size() == n && level.parent.size() == n && level.child_slot.size() == n &&
                           level.children.size() == n && level.neighbors.size() == n && level.flags.size() == n &&
                           (level.skeleton_mask.empty() || level.skeleton_mask.size() == n),
                         where << ": level " << l << ": the tables of the level do not all have one entry per cell");
          CELLWISE_CHECK(level.n_owned_cells == n, where << ": level " << l << " owns " << level.n_owned_cells << " of its " << n
                                                         << " cells; a problem file holds a serial hierarchy, every cell owned");
          if (l > 0)
            CELLWISE_CHECK(n == 8 * std::size_t(h.levels[l - 1].n_refined_cells()),
                           where << ": level " << l << " has " << n << " cells, the " << h.levels[l - 1].n_refined_cells()
                                 << " refined cells of level " << l - 1 << " have " << 8 * std::size_t(h.levels[l - 1].n_refined_cells())
                                 << " children");
        }
      for (unsigned int l = 0; l < h.n_levels(); ++l)
        {
          const Level       &level    = h.levels[l];
          const unsigned int n        = level.n_cells();
          const unsigned int n_coarse = l > 0 ? h.levels[l - 1].n_cells() : 0;
          const unsigned int n_fine   = l + 1 < h.n_levels() ? h.levels[l + 1].n_cells() : 0;
          for (unsigned int c = 0; c < n; ++c)
            {
              const int parent = level.parent[c];
              CELLWISE_CHECK_CELL(l == 0 ? parent == -1 : parent >= 0 && unsigned(parent) < n_coarse, l, c,
                                  "has an invalid parent " << parent);
              CELLWISE_CHECK_CELL(level.child_slot[c] < 8 && (l > 0 || level.child_slot[c] == 0), l, c,
                                  "has an invalid child slot " << unsigned(level.child_slot[c]));
              if (l > 0)
                CELLWISE_CHECK_CELL(h.levels[l - 1].children[parent][level.child_slot[c]] == int(c), l, c,
                                    "has an invalid parent link: its parent " << parent << " on level " << l - 1
                                                                              << " has cell "
                                                                              << h.levels[l - 1].children[parent][level.child_slot[c]]
                                                                              << " in child slot " << unsigned(level.child_slot[c]));
              const std::uint8_t flags   = level.flags[c];
              const bool         active  = flags & cell_flags::active;
              const bool         refined = flags & cell_flags::refined;
              CELLWISE_CHECK_CELL(flags == cell_flags::active || flags == cell_flags::refined, l, c,
                                  "has the invalid flags " << unsigned(flags)
                                                           << " (a cell of a problem file is active or refined, and owned)");
              for (unsigned int slot = 0; slot < 8; ++slot)
                {
                  const int child = level.children[c][slot];
                  CELLWISE_CHECK_CELL(child == -1 || (child >= 0 && unsigned(child) < n_fine), l, c,
                                      "has an invalid child " << child << " in slot " << slot);
                  CELLWISE_CHECK_CELL((child >= 0) == refined && (child < 0) == active, l, c,
                                      "is " << (refined ? "refined" : "active") << " but has "
                                            << (child >= 0 ? "a child" : "no child") << " in slot " << slot);
                  if (child >= 0)
                    CELLWISE_CHECK_CELL(h.levels[l + 1].parent[child] == int(c) && h.levels[l + 1].child_slot[child] == slot, l,
                                        c, "has an invalid child link: its child " << child << " in slot " << slot
                                                                                    << " names another parent or slot");
                }
              for (unsigned int f = 0; f < 6; ++f)
                {
                  const int neighbor = level.neighbors[c][f];
                  CELLWISE_CHECK_CELL(neighbor < int(n) && neighbor >= std::numeric_limits<int>::min() + 2, l, c,
                                      "has an invalid neighbour " << neighbor << " across face " << f);
                  CELLWISE_CHECK_CELL(!level.is_skeleton_face(c, f) || face_neighbor::is_cell(neighbor), l, c,
                                      "has a skeleton face " << f << " without a neighbour cell");
                }
              if (level.skeleton_faces.empty() && !level.skeleton_mask.empty())
                CELLWISE_CHECK_CELL(level.skeleton_mask[c] == 0, l, c, "has skeleton faces in its mask, but the level lists none");
              for (unsigned int d = 0; d < 3; ++d)
                CELLWISE_CHECK_CELL(std::isfinite(level.boxes[c].lower[d]) && std::isfinite(level.boxes[c].size[d]) &&
                                      level.boxes[c].size[d] > 0,
                                    l, c, "has an invalid box: lower corner " << level.boxes[c].lower[d] << ", size "
                                                                              << level.boxes[c].size[d] << " along axis " << d);
            }
        }
    }

    /**
     * The structure of a hierarchy whose links check_links has checked: the
     * geometry, the lattice and the neighbours agree with each other on
     * every level and between levels. A checksum protects against accidents,
     * this against a writer that got the hierarchy wrong, whose problem would
     * otherwise be solved to a wrong answer without a word. Linear in the
     * cells (level 0 is sorted once); throws cellwise::Error naming @p where,
     * the level, the cell and what is wrong:
     *
     * - the frame: level 0's cell 0 gives the lattice (its size h0 and the
     *   origin of its coordinates); a cell of level l has the size h0 / 2^l
     *   and its lower corner at its lattice position, its coordinates lie in
     *   the level's lattice (coarse_subdivisions · 2^l per axis);
     * - the children tile their parent: child slot s = s_x + 2 s_y + 4 s_z
     *   has the half of its parent's box and the coordinates 2 x + s_d;
     * - the neighbour table is symmetric (cell n across face f of c: c across
     *   face f ^ 1 of n, or across a skeleton face of n), a structured
     *   neighbour is the adjacent lattice position and the two faces coincide;
     * - level 0 of a lattice: distinct positions, the neighbour of a face the
     *   cell at the adjacent position (or boundary: a crack of the domain),
     *   boundary where no cell is; no refinement edge on level 0;
     * - finer levels follow from their parents as the builders make them: a
     *   face inside the parent has the sibling across; a face on the parent's
     *   face f has what the parent has there: the same boundary id (a face's
     *   boundary id is the same on every level where it exists), the
     *   refinement edge, the child of the refined neighbour (the same skeleton
     *   face below a skeleton face);
     * - the vectors' values are finite.
     *
     * Geometric tolerance: that of the deal.II import (1e-10 of the domain's
     * extent, dealii/import.cc), so that every mesh the import takes is also
     * written and read; 1e-12 of the distance from the origin on top for
     * domains far from it. An unstructured mesh (skeleton faces, each coarse
     * cell a block of its own frame, all level-0 coordinates 0) has the
     * reference boxes of its blocks: its lattice is that of one block.
     */
    void
    validate_lattice_structure(const Problem &problem, const std::string &where)
    {
      const LevelHierarchy &h = problem.hierarchy;
      const unsigned int    n_levels = h.n_levels();
      CELLWISE_CHECK(n_levels >= 1 && n_levels <= max_levels,
                     where << ": " << n_levels << " levels, 1.." << max_levels << " are allowed");
      const auto &subdivisions = h.coarse_subdivisions;
      for (unsigned int d = 0; d < 3; ++d)
        CELLWISE_CHECK(subdivisions[d] >= 1 && (std::uint64_t(subdivisions[d]) << (n_levels - 1)) <= max_cells_per_axis,
                       where << ": " << subdivisions[d] << " coarse cells along axis " << d << " refined " << n_levels - 1
                             << " times exceed the " << max_cells_per_axis << " cells per axis of a level");
      check_links(h, where);

      const Level &coarse = h.levels[0];
      // an unstructured mesh: every coarse cell a block with its own frame
      bool all_at_origin = true;
      for (unsigned int c = 0; c < coarse.n_cells(); ++c)
        all_at_origin = all_at_origin && coarse.coordinates[c] == std::array<int, 3>{{0, 0, 0}};
      const bool blocks = coarse.has_skeleton() ||
                          (coarse.n_cells() > 1 && all_at_origin && !coarse.mapping.empty() &&
                           subdivisions == std::array<unsigned int, 3>{{1, 1, 1}});

      // the lattice from level 0's cell 0
      std::array<double, 3> h0, origin;
      double                extent = 0, far = 0;
      for (unsigned int d = 0; d < 3; ++d)
        {
          h0[d]     = coarse.boxes[0].size[d];
          origin[d] = coarse.boxes[0].lower[d] - coarse.coordinates[0][d] * h0[d];
          extent    = std::max(extent, h0[d] * subdivisions[d]);
          far       = std::max(far, std::abs(origin[d]));
        }
      const double tolerance = 1e-10 * extent + 1e-12 * far;
      CELLWISE_CHECK(std::isfinite(tolerance), where << ": level 0 cell 0: its box gives no finite lattice");

      // level 0 of a lattice: the cells by position
      std::vector<std::pair<std::uint64_t, unsigned int>> by_position;
      const auto key = [](const std::array<int, 3> &x) {
        return (std::uint64_t(x[2]) << 42) | (std::uint64_t(x[1]) << 21) | std::uint64_t(x[0]);
      };

      for (unsigned int l = 0; l < n_levels; ++l)
        {
          const Level          &level = h.levels[l];
          const Level          *above = l > 0 ? &h.levels[l - 1] : nullptr;
          const unsigned int    n     = level.n_cells();
          std::array<double, 3> size;
          std::array<int, 3>    cells_per_axis;
          for (unsigned int d = 0; d < 3; ++d)
            {
              size[d]           = std::ldexp(h0[d], -int(l));
              cells_per_axis[d] = int(subdivisions[d] << l);
            }

          // the cells: lattice, size, tiling of the parent, position
          for (unsigned int c = 0; c < n; ++c)
            {
              const CellBox            &box = level.boxes[c];
              const std::array<int, 3> &x   = level.coordinates[c];
              for (unsigned int d = 0; d < 3; ++d)
                CELLWISE_CHECK_CELL(x[d] >= 0 && x[d] < cells_per_axis[d], l, c,
                                    "its lattice coordinates " << describe_position(x) << " lie outside the lattice of its level ("
                                                               << cells_per_axis[0] << " x " << cells_per_axis[1] << " x "
                                                               << cells_per_axis[2] << " cells)");
              for (unsigned int d = 0; d < 3; ++d)
                CELLWISE_CHECK_CELL(std::abs(box.size[d] - size[d]) <= tolerance, l, c,
                                    "has the cell size " << box.size[d] << " along axis " << d << ", the cells of level " << l
                                                         << " have the size " << size[d]
                                                         << (l == 0 ? " (that of its cell 0)" : " (level 0's halved once per level)")
                                                         << ": a changed cell size");
              if (l > 0)
                {
                  const unsigned int parent = unsigned(level.parent[c]);
                  const unsigned int slot   = level.child_slot[c];
                  const CellBox     &outer  = above->boxes[parent];
                  for (unsigned int d = 0; d < 3; ++d)
                    {
                      const unsigned int bit   = (slot >> d) & 1;
                      const double       half  = 0.5 * outer.size[d];
                      const double       lower = outer.lower[d] + bit * half;
                      CELLWISE_CHECK_CELL(std::abs(box.lower[d] - lower) <= tolerance && std::abs(box.size[d] - half) <= tolerance, l,
                                          c,
                                          "does not tile its parent: along axis " << d << " it covers [" << box.lower[d] << ", "
                                                                                  << box.lower[d] + box.size[d] << "], child slot "
                                                                                  << slot << " of cell " << parent << " on level "
                                                                                  << l - 1 << " covers [" << lower << ", "
                                                                                  << lower + half << "]");
                      CELLWISE_CHECK_CELL(x[d] == 2 * above->coordinates[parent][d] + int(bit), l, c,
                                          "does not tile its parent: its lattice coordinates "
                                            << describe_position(x) << " are not those of child slot " << slot << " of cell "
                                            << parent << " on level " << l - 1 << " at "
                                            << describe_position(above->coordinates[parent]));
                    }
                }
              for (unsigned int d = 0; d < 3; ++d)
                {
                  const double lower = origin[d] + x[d] * size[d];
                  CELLWISE_CHECK_CELL(std::abs(box.lower[d] - lower) <= tolerance, l, c,
                                      "has its lower corner at " << box.lower[d] << " along axis " << d
                                                                 << ", its lattice position " << describe_position(x)
                                                                 << " is at " << lower);
                }
            }

          if (l == 0 && !blocks)
            {
              by_position.resize(n);
              for (unsigned int c = 0; c < n; ++c)
                by_position[c] = {key(level.coordinates[c]), c};
              std::sort(by_position.begin(), by_position.end());
              for (unsigned int k = 1; k < n; ++k)
                CELLWISE_CHECK_CELL(by_position[k].first != by_position[k - 1].first, 0, by_position[k].second,
                                    "lies at the lattice position " << describe_position(level.coordinates[by_position[k].second])
                                                                    << " of cell " << by_position[k - 1].second);
            }

          // the neighbours
          for (unsigned int c = 0; c < n; ++c)
            for (unsigned int f = 0; f < 6; ++f)
              {
                const unsigned int d        = f / 2;
                const unsigned int upper    = f % 2;
                const int          neighbor = level.neighbors[c][f];
                const bool         skeleton = level.is_skeleton_face(c, f);
                std::array<int, 3> adjacent = level.coordinates[c];
                adjacent[d] += upper ? 1 : -1;
                if (face_neighbor::is_cell(neighbor) && !skeleton)
                  {
                    const int back = level.neighbors[neighbor][f ^ 1];
                    CELLWISE_CHECK_CELL(back == int(c) && !level.is_skeleton_face(neighbor, f ^ 1), l, c,
                                        "names cell " << neighbor << " across face " << f << ", which has "
                                                      << describe_neighbor(back) << " across its face " << (f ^ 1)
                                                      << (back == int(c) ? " as a skeleton face" : "")
                                                      << ": the neighbour table is not symmetric");
                    CELLWISE_CHECK_CELL(level.coordinates[neighbor] == adjacent, l, c,
                                        "has a broken neighbour link: across face "
                                          << f << " it names cell " << neighbor << " at the lattice position "
                                          << describe_position(level.coordinates[neighbor]) << ", not at the adjacent "
                                          << describe_position(adjacent));
                    const CellBox &mine = level.boxes[c], &theirs = level.boxes[neighbor];
                    const double   plane       = upper ? mine.lower[d] + mine.size[d] : mine.lower[d];
                    const double   their_plane = upper ? theirs.lower[d] : theirs.lower[d] + theirs.size[d];
                    bool           coincide    = std::abs(plane - their_plane) <= 2 * tolerance;
                    for (unsigned int e = 0; e < 3; ++e)
                      if (e != d)
                        coincide = coincide && std::abs(mine.lower[e] - theirs.lower[e]) <= 2 * tolerance &&
                                   std::abs(mine.size[e] - theirs.size[e]) <= 2 * tolerance;
                    CELLWISE_CHECK_CELL(coincide, l, c,
                                        "its face " << f << " does not coincide with the face " << (f ^ 1) << " of its neighbour "
                                                    << neighbor);
                  }
                else if (skeleton)
                  {
                    bool back = false;
                    for (unsigned int g = 0; g < 6; ++g)
                      back = back || (level.neighbors[neighbor][g] == int(c) && level.is_skeleton_face(neighbor, g));
                    CELLWISE_CHECK_CELL(back, l, c,
                                        "names cell " << neighbor << " across its skeleton face " << f << ", which names cell " << c
                                                      << " across none of its skeleton faces: the neighbour table is not symmetric");
                  }

                if (l == 0)
                  {
                    CELLWISE_CHECK_CELL(neighbor != face_neighbor::none, l, c,
                                        "has no neighbour across face "
                                          << f << " (the refinement edge), which level 0 cannot have: each of its faces has a "
                                             "neighbour or is boundary");
                    if (!blocks)
                      {
                        const bool inside = adjacent[d] >= 0 && adjacent[d] < cells_per_axis[d];
                        const auto found  = inside ? std::lower_bound(by_position.begin(), by_position.end(),
                                                                      std::pair<std::uint64_t, unsigned int>{key(adjacent), 0})
                                                   : by_position.end();
                        const bool occupied = found != by_position.end() && found->first == key(adjacent);
                        if (occupied)
                          CELLWISE_CHECK_CELL(neighbor == int(found->second) || face_neighbor::is_boundary(neighbor), l, c,
                                              "has " << describe_neighbor(neighbor) << " across face " << f << ", the cell at the adjacent "
                                                     << "lattice position " << describe_position(adjacent) << " is cell "
                                                     << found->second << ": a broken neighbour link");
                        else
                          CELLWISE_CHECK_CELL(face_neighbor::is_boundary(neighbor), l, c,
                                              "has " << describe_neighbor(neighbor) << " across face " << f
                                                     << ", but no cell of level 0 is at the adjacent lattice position "
                                                     << describe_position(adjacent) << ": the face is boundary");
                      }
                    continue;
                  }

                // finer levels: what the parent says
                const unsigned int parent = unsigned(level.parent[c]);
                const unsigned int slot   = level.child_slot[c];
                const unsigned int other  = slot ^ (1u << d);
                if (((slot >> d) & 1) != upper)
                  {
                    const int sibling = above->children[parent][other];
                    CELLWISE_CHECK_CELL(neighbor == sibling && !skeleton, l, c,
                                        "has " << describe_neighbor(neighbor) << (skeleton ? " (a skeleton face)" : "")
                                               << " across face " << f << ", its sibling in child slot " << other
                                               << " of its parent " << parent << " on level " << l - 1 << " is cell " << sibling
                                               << ": a broken neighbour link");
                    continue;
                  }
                const int  across          = above->neighbors[parent][f];
                const bool parent_skeleton = above->is_skeleton_face(parent, f);
                CELLWISE_CHECK_CELL(skeleton == parent_skeleton, l, c,
                                    "its face " << f << " is " << (skeleton ? "" : "not ") << "a skeleton face, the face " << f
                                                << " of its parent " << parent << " on level " << l - 1 << " is "
                                                << (parent_skeleton ? "" : "not ") << "one");
                if (face_neighbor::is_boundary(across))
                  CELLWISE_CHECK_CELL(neighbor == across, l, c,
                                      "has " << describe_neighbor(neighbor) << " across face " << f
                                             << ", which lies on the face " << f << " of its parent " << parent << " on level "
                                             << l - 1 << " with " << describe_neighbor(across)
                                             << (face_neighbor::is_boundary(neighbor)
                                                   ? ": the boundary id of a face differs between levels (it must be the same on "
                                                     "every level where the face exists)"
                                                   : ": a boundary face of the parent is boundary on every level"));
                else if (across == face_neighbor::none || !above->is_refined(unsigned(across)))
                  CELLWISE_CHECK_CELL(neighbor == face_neighbor::none, l, c,
                                      "has " << describe_neighbor(neighbor) << " across face " << f << ", but its parent " << parent
                                             << " on level " << l - 1 << " has "
                                             << (across == face_neighbor::none ? std::string("no neighbour of its level")
                                                                               : "the unrefined cell " + std::to_string(across))
                                             << " across that face: the refinement edge (no neighbour) is expected");
                else if (!parent_skeleton)
                  {
                    const int expected = above->children[across][other];
                    CELLWISE_CHECK_CELL(neighbor == expected, l, c,
                                        "has " << describe_neighbor(neighbor) << " across face " << f << ", the child in slot " << other
                                               << " of its parent's neighbour " << across << " on level " << l - 1 << " is cell "
                                               << expected << ": a broken neighbour link");
                  }
                else
                  CELLWISE_CHECK_CELL(face_neighbor::is_cell(neighbor) && level.parent[neighbor] == across, l, c,
                                      "has " << describe_neighbor(neighbor) << " across its skeleton face " << f
                                             << ", which is not a child of its parent's neighbour " << across << " on level "
                                             << l - 1 << ": a broken neighbour link");
              }
        }

      const unsigned int n_vector_cells = problem.locally_refined ? h.n_active_cells() : h.levels.back().n_cells();
      for (const auto &[vector, name] : {std::pair{&problem.rhs, "right-hand side"}, std::pair{&problem.solution, "reference solution"}})
        {
          CELLWISE_CHECK(vector->n_cells() == n_vector_cells && vector->degree() == problem.degree,
                         where << ": the " << name << " has " << vector->n_cells() << " cells of degree " << vector->degree()
                               << ", the problem " << n_vector_cells << " of degree " << problem.degree);
          const std::size_t n_values = vector->size();
          const double     *values   = vector->data();
          for (std::size_t i = 0; i < n_values; ++i)
            CELLWISE_CHECK(std::isfinite(values[i]), where << ": the " << name << " has the value " << values[i] << " in cell "
                                                           << i / vector->dofs_per_cell() << " of the vectors");
        }
      const std::vector<double> &a = problem.cell_coefficients;
      CELLWISE_CHECK(a.empty() || a.size() == n_vector_cells,
                     where << ": " << a.size() << " coefficient values for " << n_vector_cells << " cells");
      for (std::size_t c = 0; c < a.size(); ++c)
        CELLWISE_CHECK(std::isfinite(a[c]) && a[c] > 0,
                       where << ": the coefficient of cell " << c << " of the vectors is " << a[c] << " (positive and finite is allowed)");
    }

    /**
     * The geometry of the cell mappings of a hierarchy that has passed
     * validate_lattice_structure and whose skeleton lists read_skeleton has
     * checked (so the reader only: the writer takes the mappings and lists as
     * they are, the reader refuses them by name):
     *
     * - the nodes of two structured neighbours on their common face coincide
     *   (face coordinates (a, b) of fe/face_dofs.h on both sides);
     * - the nodes of a skeleton face coincide with the neighbour's nodes at
     *   the oriented face coordinates (oriented_face_point);
     * - the corner node of child slot s at its parent's corner s is the
     *   parent's corner node (a vertex of the parent is one of the child).
     *
     * Not checked: that a child's other nodes lie on its parent's mapped
     * geometry. map_hierarchy and the deal.II import interpolate the exact
     * map (a manifold) on every level, so a child's nodes inside its parent
     * lie on the parent's polynomial geometry only up to its interpolation
     * error, which no fixed tolerance bounds. Tolerance: 1e-8 of the cells'
     * extent (their corners' bounding box) plus 1e-12 of the distance from
     * the origin: rounding only, a broken link is off by a cell.
     */
    void
    validate_mappings(const LevelHierarchy &h, const std::string &where)
    {
      const auto distance = [](const Point &x, const Point &y) {
        return std::max({std::abs(x[0] - y[0]), std::abs(x[1] - y[1]), std::abs(x[2] - y[2])});
      };
      const auto corner_index = [](const unsigned int k, const unsigned int v) {
        return ((v & 1) + (k + 1) * (((v >> 1) & 1) + (k + 1) * ((v >> 2) & 1))) * k;
      };
      const auto magnitude = [](const Point &x) { return std::max({std::abs(x[0]), std::abs(x[1]), std::abs(x[2])}); };
      // the extent of a cell: its corners' bounding box
      const auto extent = [&](const CellMapping &mapping, const unsigned int cell) {
        const Point *nodes = mapping.cell_nodes(cell);
        Point        lo = nodes[0], hi = nodes[0];
        for (unsigned int v = 1; v < 8; ++v)
          for (unsigned int d = 0; d < 3; ++d)
            {
              lo[d] = std::min(lo[d], nodes[corner_index(mapping.degree, v)][d]);
              hi[d] = std::max(hi[d], nodes[corner_index(mapping.degree, v)][d]);
            }
        return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
      };
      for (unsigned int l = 0; l < h.n_levels(); ++l)
        {
          const Level &level = h.levels[l];
          if (level.mapping.empty())
            continue;
          const CellMapping &mapping = level.mapping;
          const unsigned int k       = mapping.degree;
          const unsigned int m       = k + 1;
          const auto         face_node = [&](const unsigned int cell, const unsigned int face, const unsigned int a,
                                     const unsigned int b) -> const Point & {
            return mapping.cell_nodes(cell)[face_layer_dof(m, face / 2, (face % 2) * k, a, b)];
          };
          const auto compare_face = [&](const unsigned int c, const unsigned int f, const unsigned int neighbor,
                                        const unsigned int g, const std::uint8_t orientation, const bool oriented) {
            const double scale = std::max(extent(mapping, c), extent(mapping, neighbor));
            for (unsigned int b = 0; b <= k; ++b)
              for (unsigned int a = 0; a <= k; ++a)
                {
                  const auto   there = oriented ? oriented_face_point(orientation, a, b, k) : std::array<unsigned int, 2>{{a, b}};
                  const Point &x     = face_node(c, f, a, b);
                  const Point &y     = face_node(neighbor, g, there[0], there[1]);
                  CELLWISE_CHECK_CELL(distance(x, y) <= 1e-8 * scale + 1e-12 * magnitude(x), l, c,
                                      "the mapping node (" << a << ", " << b << ") of its face " << f << " at (" << x[0] << ", "
                                                           << x[1] << ", " << x[2] << ") is not the node of the face " << g
                                                           << " of its neighbour " << neighbor << " at (" << y[0] << ", " << y[1]
                                                           << ", " << y[2] << "): the faces do not coincide");
                }
          };
          for (unsigned int c = 0; c < level.n_cells(); ++c)
            for (unsigned int f = 1; f < 6; f += 2)
              {
                const int neighbor = level.neighbors[c][f];
                if (face_neighbor::is_cell(neighbor) && !level.is_skeleton_face(c, f))
                  compare_face(c, f, unsigned(neighbor), f ^ 1, 0, false);
              }
          for (const SkeletonFace &face : level.skeleton_faces)
            compare_face(face.cell, face.face, unsigned(face.neighbor), face.neighbor_face, face.orientation, true);
          if (l == 0 || h.levels[l - 1].mapping.empty())
            continue;
          const Level       &above = h.levels[l - 1];
          const unsigned int kp    = above.mapping.degree;
          for (unsigned int c = 0; c < level.n_cells(); ++c)
            {
              const unsigned int parent = unsigned(level.parent[c]);
              const unsigned int slot   = level.child_slot[c];
              const Point       &x      = mapping.cell_nodes(c)[corner_index(k, slot)];
              const Point       &y      = above.mapping.cell_nodes(parent)[corner_index(kp, slot)];
              CELLWISE_CHECK_CELL(distance(x, y) <= 1e-8 * extent(above.mapping, parent) + 1e-12 * magnitude(x), l, c,
                                  "its mapped corner " << slot << " at (" << x[0] << ", " << x[1] << ", " << x[2]
                                                       << ") is not the corner of its parent " << parent << " on level " << l - 1
                                                       << " at (" << y[0] << ", " << y[1] << ", " << y[2] << ")");
            }
        }
    }

#undef CELLWISE_CHECK_CELL
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
    CELLWISE_CHECK(problem.description.size() <= max_description_bytes,
                   "write_problem_file: the description has " << problem.description.size() << " bytes, at most "
                                                              << max_description_bytes << " are written");
    CELLWISE_CHECK(problem.dirichlet_ids.size() <= max_dirichlet_ids,
                   "write_problem_file: " << problem.dirichlet_ids.size() << " Dirichlet ids, at most " << max_dirichlet_ids
                                          << " are written");
    // what the reader would refuse is not written: the hierarchy's links,
    // lattice, tiling, neighbours and boundary ids (its skeleton lists and
    // mappings as they are: the reader refuses those by name)
    validate_lattice_structure(problem, "write_problem_file " + filename);

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



  namespace
  {
    Problem
    read_problem_contents(const std::string &filename);
  }

  Problem
  read_problem_file(const std::string &filename)
  {
    // the counts are bounded by the file's size before anything is
    // allocated; a file that is as large as it claims (a sparse one, or a
    // real one) can still ask for more than this process may use: a clear
    // error, not std::bad_alloc
    try
      {
        return read_problem_contents(filename);
      }
    catch (const std::bad_alloc &)
      {
        const HostMemoryLimit limit = host_memory_limit();
        CELLWISE_CHECK(false, "problem file " << filename << ": its levels and vectors do not fit into the memory this process "
                                                 "may use ("
                                              << (limit.known ? format_bytes(double(limit.bytes)) + ", bounded by " + limit.source
                                                              : std::string("the system did not say how much"))
                                              << ")");
      }
  }

  namespace
  {
  Problem
  read_problem_contents(const std::string &filename)
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
    const std::uint32_t n_levels  = in.count(8, "levels", max_levels);
    auto               &h         = problem.hierarchy;
    for (unsigned int &s : h.coarse_subdivisions)
      s = in.value<std::uint32_t>();
    const std::uint8_t refined    = in.value<std::uint8_t>();
    const std::uint32_t n_ids     = in.count(4, "Dirichlet ids", max_dirichlet_ids);
    const std::uint32_t n_text    = in.count(1, "description bytes", max_description_bytes);
    CELLWISE_CHECK(problem.degree >= 1 && problem.degree <= 8 && n_levels >= 1 && refined <= 1,
                   "problem file " << filename << ": header with degree " << problem.degree << ", " << n_levels
                                   << " levels (corrupt file)");
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(h.coarse_subdivisions[d] >= 1 &&
                       (std::uint64_t(h.coarse_subdivisions[d]) << (n_levels - 1)) <= max_cells_per_axis,
                     "problem file " << filename << ": " << h.coarse_subdivisions[d] << " coarse cells along axis " << d
                                     << " refined " << n_levels - 1 << " times exceed the " << max_cells_per_axis
                                     << " cells per axis of a level (corrupt file)");
    problem.locally_refined = refined == 1;
    problem.dirichlet_ids.resize(n_ids);
    for (unsigned int &id : problem.dirichlet_ids)
      id = in.value<std::uint32_t>();
    problem.description.resize(n_text);
    in.bytes(problem.description.data(), n_text);

    h.levels.resize(n_levels);
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        Level              &level = h.levels[l];
        const std::uint32_t n     = in.count(cell_bytes, "cells of a level", max_cells_per_level);
        // a finer level holds the 8 children of each refined cell of the
        // level below: checked before its cells are allocated
        if (l > 0)
          CELLWISE_CHECK(n == 8 * std::uint64_t(h.levels[l - 1].n_refined_cells()),
                         "problem file " << filename << ": level " << l << " has " << n << " cells, the "
                                         << h.levels[l - 1].n_refined_cells() << " refined cells of level " << l - 1
                                         << " have " << 8 * std::uint64_t(h.levels[l - 1].n_refined_cells())
                                         << " children (corrupt file)");
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
    // the checksum says the bytes are those written; now whether what was
    // written is a consistent problem (a writer may be wrong)
    const std::string where = "problem file " + filename;
    validate_lattice_structure(problem, where);
    validate_mappings(h, where);
    return problem;
  }



  } // namespace

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
