//! The viewer's renderer: shape meshes (box, sphere, capsule, convex polyhedron, triangles,
//! tiled slabs and planes), lit on the CPU into vertex colours, batched into macroquad meshes.
//!
//! It speaks glam (macroquad's maths) only: `scene_view` turns the engine's shapes and poses
//! into the [`Solid`]s and [`Pose`]s here, so nalgebra never reaches this module and glam never
//! reaches the engine.
//!
//! Lighting is Lambert with a hemisphere ambient, per vertex: flat faces (boxes, hulls, meshes)
//! carry one normal per face, round ones (spheres, capsules) one per vertex. Computed on the
//! CPU, not in a shader, because it is a few multiplications per vertex and needs no
//! material or shader of macroquad's, which keeps this module small. (Spheres in scenes of
//! many are the exception: `impostor` draws them with a shader, for speed.)

use macroquad::models::{draw_mesh, Mesh, Vertex};
use macroquad::prelude::{Color, Quat, Vec2, Vec3, Vec4};

/// Most vertices in one macroquad draw call (its default capacity is 10,000; the viewer's
/// window asks for this much, see `main`). Meshes are cut into batches of at most this.
pub const BATCH_VERTICES: usize = 30_000;
/// Most indices in one draw call.
pub const BATCH_INDICES: usize = 3 * BATCH_VERTICES;

/// A rigid pose: rotate, then translate.
#[derive(Clone, Copy, Debug)]
pub struct Pose {
    /// Rotation.
    pub rotation: Quat,
    /// Translation.
    pub translation: Vec3,
}

impl Pose {
    /// Where `p` (local) is in the world.
    pub fn apply(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }
}

/// A shape to draw, in its own frame.
#[derive(Clone, Debug)]
pub enum Solid {
    /// A box of half-extents.
    Cuboid(Vec3),
    /// A sphere of radius.
    Sphere(f32),
    /// A capsule along local Y: half the height of its cylinder, and radius.
    Capsule(f32, f32),
    /// A convex polyhedron: points, and each face's point indices in order round it with its
    /// outward normal.
    Polyhedron(Vec<Vec3>, Vec<(Vec<u32>, Vec3)>),
    /// Triangles (a mesh or height field), each given by its corners.
    Triangles(Vec<[Vec3; 3]>),
    /// A plane through the origin with this outward normal, drawn as a tiled square.
    Plane(Vec3),
}

/// A mesh in its shape's frame: positions, normals, a tone per vertex (1 or a little darker,
/// for the tiles of static ground) and triangles.
#[derive(Clone, Debug, Default)]
pub struct LocalMesh {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    tones: Vec<f32>,
    indices: Vec<u32>,
}

/// How finely round shapes are cut: segments round the equator (rings are half as many).
#[derive(Clone, Copy, Debug)]
pub struct Detail {
    /// Segments round a sphere or capsule.
    pub segments: u32,
    /// Side of a ground tile (m); static shapes larger than a tile are drawn as a chequer.
    pub tile: f32,
}

impl LocalMesh {
    /// The mesh of `solid`; static shapes (`tiled`) get a chequer of `detail.tile`.
    pub fn new(solid: &Solid, detail: Detail, tiled: bool) -> LocalMesh {
        let mut mesh = LocalMesh::default();
        let tile = if tiled { detail.tile } else { f32::INFINITY };
        match solid {
            Solid::Cuboid(half) => mesh.cuboid(*half, tile),
            Solid::Sphere(radius) => mesh.round(*radius, 0.0, detail.segments),
            Solid::Capsule(half_height, radius) => {
                mesh.round(*radius, *half_height, detail.segments)
            }
            Solid::Polyhedron(points, faces) => {
                for (face, normal) in faces {
                    let corners: Vec<Vec3> = face.iter().map(|&i| points[i as usize]).collect();
                    mesh.polygon(&corners, *normal, 1.0);
                }
            }
            Solid::Triangles(triangles) => {
                for [a, b, c] in triangles {
                    let normal = (*b - *a).cross(*c - *a).normalize_or_zero();
                    let centre = (*a + *b + *c) / 3.0;
                    mesh.polygon(&[*a, *b, *c], normal, chequer(centre, tile));
                }
            }
            Solid::Plane(normal) => mesh.plane(*normal, tile),
        }
        mesh
    }

    /// Number of vertices.
    #[cfg(test)]
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// A flat convex polygon (fanned into triangles) of one tone.
    fn polygon(&mut self, corners: &[Vec3], normal: Vec3, tone: f32) {
        let first = self.positions.len() as u32;
        for &p in corners {
            self.positions.push(p);
            self.normals.push(normal);
            self.tones.push(tone);
        }
        for i in 1..corners.len().saturating_sub(1) as u32 {
            self.indices.extend([first, first + i, first + i + 1]);
        }
    }

    /// A box, each face cut into tiles of side `tile` (at most 100 a side) when larger.
    fn cuboid(&mut self, half: Vec3, tile: f32) {
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let mut normal = Vec3::ZERO;
                normal[axis] = sign;
                // The face's two in-plane axes.
                let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                let (nu, nv) = (tiles(2.0 * half[u], tile), tiles(2.0 * half[v], tile));
                for i in 0..nu {
                    for j in 0..nv {
                        let corner = |di: u32, dj: u32| {
                            let mut p = Vec3::ZERO;
                            p[axis] = sign * half[axis];
                            p[u] = -half[u] + 2.0 * half[u] * (i + di) as f32 / nu as f32;
                            p[v] = -half[v] + 2.0 * half[v] * (j + dj) as f32 / nv as f32;
                            p
                        };
                        let quad = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
                        let tone = if nu * nv > 1 && (i + j) % 2 == 1 {
                            DARK_TILE
                        } else {
                            1.0
                        };
                        self.polygon(&quad, normal, tone);
                    }
                }
            }
        }
    }

    /// A sphere of `radius` (half_height 0) or a capsule along Y: latitude rings, the top half
    /// raised by `half_height` and the bottom half lowered, joined by the cylinder between.
    fn round(&mut self, radius: f32, half_height: f32, segments: u32) {
        let segments = segments.max(6);
        // An even number of rings, so that the equator is a ring the two halves share.
        let rings = (segments / 2).max(4) & !1;
        let first = self.positions.len() as u32;
        // Rows of vertices from the top pole down; the equator is doubled for a capsule so that
        // the cylinder between the two copies has vertical sides.
        let mut rows = Vec::new();
        for r in 0..=rings {
            let theta = std::f32::consts::PI * r as f32 / rings as f32;
            if r == rings / 2 && half_height > 0.0 {
                rows.push((theta, half_height));
                rows.push((theta, -half_height));
            } else {
                let shift = if r < rings / 2 {
                    half_height
                } else {
                    -half_height
                };
                rows.push((theta, shift));
            }
        }
        for &(theta, shift) in &rows {
            for s in 0..=segments {
                let phi = std::f32::consts::TAU * s as f32 / segments as f32;
                let n = Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.cos(),
                    theta.sin() * phi.sin(),
                );
                self.positions.push(n * radius + Vec3::new(0.0, shift, 0.0));
                self.normals.push(n);
                // Alternate quarter-segments a shade darker so that a rolling ball shows it.
                let quarter = (s * 4 / segments) % 2 == 1 && theta > 0.5 * std::f32::consts::PI;
                self.tones.push(if quarter { 0.8 } else { 1.0 });
            }
        }
        let width = segments + 1;
        for r in 0..rows.len() as u32 - 1 {
            for s in 0..segments {
                let a = first + r * width + s;
                let b = a + width;
                self.indices.extend([a, b, a + 1, a + 1, b, b + 1]);
            }
        }
    }

    /// A square 160 m across in the plane through the origin with `normal`, tiled.
    fn plane(&mut self, normal: Vec3, tile: f32) {
        const HALF: f32 = 80.0;
        let n = normal.normalize_or_zero();
        let (u, v) = n.any_orthonormal_pair();
        let count = tiles(2.0 * HALF, tile.max(2.0));
        let step = 2.0 * HALF / count as f32;
        for i in 0..count {
            for j in 0..count {
                let (x, y) = (-HALF + i as f32 * step, -HALF + j as f32 * step);
                let at = |dx: f32, dy: f32| u * (x + dx) + v * (y + dy);
                let quad = [at(0.0, 0.0), at(step, 0.0), at(step, step), at(0.0, step)];
                let tone = if (i + j) % 2 == 1 { DARK_TILE } else { 1.0 };
                self.polygon(&quad, n, tone);
            }
        }
    }
}

/// The tone of the darker tiles of a chequer.
const DARK_TILE: f32 = 0.86;

/// Tiles of side about `tile` across `length`: at least 1, at most 100.
fn tiles(length: f32, tile: f32) -> u32 {
    if tile.is_finite() && tile > 0.0 {
        ((length / tile).round() as u32).clamp(1, 100)
    } else {
        1
    }
}

/// The tone of the chequer tile of side `tile` under `p` (in the horizontal plane).
fn chequer(p: Vec3, tile: f32) -> f32 {
    if !tile.is_finite() {
        return 1.0;
    }
    let (i, k) = ((p.x / tile).floor() as i64, (p.z / tile).floor() as i64);
    if (i + k).rem_euclid(2) == 1 {
        DARK_TILE
    } else {
        1.0
    }
}

/// The light: a key light from above and to the side, a hemisphere ambient (brighter from the
/// sky than from the ground).
#[derive(Clone, Copy, Debug)]
pub struct Light {
    /// Unit direction towards the key light.
    pub towards: Vec3,
    /// Share of the key light.
    pub key: f32,
    /// Ambient from below and from above.
    pub ambient: (f32, f32),
}

impl Default for Light {
    fn default() -> Self {
        Light {
            towards: Vec3::new(0.45, 1.0, 0.6).normalize(),
            key: 0.55,
            ambient: (0.36, 0.56),
        }
    }
}

impl Light {
    /// How lit a surface of unit normal `n` is (0 .. about 1).
    pub fn intensity(&self, n: Vec3) -> f32 {
        let hemisphere = 0.5 + 0.5 * n.y;
        let ambient = self.ambient.0 + (self.ambient.1 - self.ambient.0) * hemisphere;
        ambient + self.key * n.dot(self.towards).max(0.0)
    }
}

/// Lit triangles collected over a frame, drawn in batches of at most [`BATCH_VERTICES`].
#[derive(Default)]
pub struct Batch {
    meshes: Vec<Mesh>,
    /// How many of `meshes` hold this frame's triangles.
    used: usize,
}

impl Batch {
    /// Empties the batch, keeping its buffers.
    pub fn clear(&mut self) {
        for mesh in &mut self.meshes[..self.used] {
            mesh.vertices.clear();
            mesh.indices.clear();
        }
        self.used = 0;
    }

    /// The mesh with room for `vertices` and `indices` more.
    fn room(&mut self, vertices: usize, indices: usize) -> &mut Mesh {
        let fits = |m: &Mesh| {
            m.vertices.len() + vertices <= BATCH_VERTICES
                && m.indices.len() + indices <= BATCH_INDICES
        };
        if self.used == 0 || !fits(&self.meshes[self.used - 1]) {
            if self.used == self.meshes.len() {
                self.meshes.push(Mesh {
                    vertices: Vec::new(),
                    indices: Vec::new(),
                    texture: None,
                });
            }
            self.used += 1;
        }
        &mut self.meshes[self.used - 1]
    }

    /// Adds `mesh` at `pose` in `colour`, lit by `light`. A mesh too big for one batch is
    /// added triangle by triangle.
    pub fn add(&mut self, mesh: &LocalMesh, pose: &Pose, colour: Color, light: &Light) {
        let vertex = |i: usize| {
            let n = pose.rotation * mesh.normals[i];
            let shade = light.intensity(n) * mesh.tones[i];
            lit_vertex(pose.apply(mesh.positions[i]), n, colour, shade)
        };
        if mesh.positions.len() <= BATCH_VERTICES {
            let target = self.room(mesh.positions.len(), mesh.indices.len());
            let base = target.vertices.len() as u32;
            target
                .vertices
                .extend((0..mesh.positions.len()).map(vertex));
            target
                .indices
                .extend(mesh.indices.iter().map(|&i| (base + i) as u16));
        } else {
            for triangle in mesh.indices.chunks(3) {
                let target = self.room(3, 3);
                let base = target.vertices.len() as u16;
                target
                    .vertices
                    .extend(triangle.iter().map(|&i| vertex(i as usize)));
                target.indices.extend([base, base + 1, base + 2]);
            }
        }
    }

    /// Adds a quad of four vertices given round it (two triangles), as they are.
    pub fn quad(&mut self, corners: [Vertex; 4]) {
        let target = self.room(4, 6);
        let base = target.vertices.len() as u16;
        target.vertices.extend(corners);
        target
            .indices
            .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }

    /// Adds every triangle of `other` (already lit) to this batch.
    pub fn append(&mut self, other: &Batch) {
        for mesh in &other.meshes[..other.used] {
            let target = self.room(mesh.vertices.len(), mesh.indices.len());
            let base = target.vertices.len() as u16;
            target.vertices.extend_from_slice(&mesh.vertices);
            target
                .indices
                .extend(mesh.indices.iter().map(|&i| base + i));
        }
    }

    /// Vertices held.
    pub fn vertex_count(&self) -> usize {
        self.meshes[..self.used]
            .iter()
            .map(|m| m.vertices.len())
            .sum()
    }

    /// Draws the batch with the current camera.
    pub fn draw(&self) {
        for mesh in &self.meshes[..self.used] {
            draw_mesh(mesh);
        }
    }
}

/// A vertex of `colour` times `shade` (clamped), opaque.
fn lit_vertex(position: Vec3, normal: Vec3, colour: Color, shade: f32) -> Vertex {
    let channel = |c: f32| ((c * shade).clamp(0.0, 1.0) * 255.0) as u8;
    Vertex {
        position,
        uv: Vec2::ZERO,
        color: [channel(colour.r), channel(colour.g), channel(colour.b), 255],
        normal: Vec4::new(normal.x, normal.y, normal.z, 0.0),
    }
}

/// The colours of the viewer: what a body is made of decides its hue.
pub mod palette {
    use macroquad::prelude::Color;

    /// Static geometry: a warm grey.
    pub const STATIC: Color = Color::new(0.66, 0.64, 0.6, 1.0);
    /// The endless floor: a lighter grey.
    pub const FLOOR: Color = Color::new(0.78, 0.77, 0.74, 1.0);
    /// Level geometry (triangle meshes, height fields): a muted green.
    pub const TERRAIN: Color = Color::new(0.52, 0.62, 0.42, 1.0);
    /// Soft contact materials (trampolines): a blue.
    pub const SOFT: Color = Color::new(0.25, 0.6, 0.95, 1.0);
    /// Kinematic bodies: a violet.
    pub const KINEMATIC: Color = Color::new(0.6, 0.45, 0.85, 1.0);
    /// The sky behind.
    pub const SKY: Color = Color::new(0.8, 0.85, 0.9, 1.0);

    /// Dynamic bodies take one of these by their index.
    const DYNAMIC: [Color; 8] = [
        Color::new(0.93, 0.52, 0.2, 1.0),
        Color::new(0.2, 0.65, 0.6, 1.0),
        Color::new(0.86, 0.3, 0.3, 1.0),
        Color::new(0.95, 0.78, 0.25, 1.0),
        Color::new(0.5, 0.72, 0.3, 1.0),
        Color::new(0.35, 0.5, 0.85, 1.0),
        Color::new(0.8, 0.45, 0.7, 1.0),
        Color::new(0.55, 0.4, 0.3, 1.0),
    ];

    /// The colour of dynamic body `index` (or island `index`).
    pub fn dynamic(index: u32) -> Color {
        DYNAMIC[(index as usize).wrapping_mul(5) % DYNAMIC.len()]
    }

    /// A sleeping body's colour: greyer and darker.
    pub fn asleep(c: Color) -> Color {
        let grey = 0.3 * c.r + 0.5 * c.g + 0.2 * c.b;
        let mix = |x: f32| 0.72 * (0.5 * x + 0.5 * grey);
        Color::new(mix(c.r), mix(c.g), mix(c.b), 1.0)
    }

    /// The body being dragged: lighter.
    pub fn highlighted(c: Color) -> Color {
        let lift = |x: f32| x + 0.35 * (1.0 - x);
        Color::new(lift(c.r), lift(c.g), lift(c.b), 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DETAIL: Detail = Detail {
        segments: 16,
        tile: 2.0,
    };

    /// Every normal is unit and points away from the centre of a convex solid.
    fn outward(mesh: &LocalMesh) {
        for (p, n) in mesh.positions.iter().zip(&mesh.normals) {
            assert!((n.length() - 1.0).abs() < 1e-4, "normal {n}");
            assert!(p.dot(*n) > 0.0, "normal {n} at {p} points inwards");
        }
        assert!(mesh
            .indices
            .iter()
            .all(|&i| (i as usize) < mesh.positions.len()));
        assert_eq!(mesh.indices.len() % 3, 0);
    }

    #[test]
    fn a_box_has_six_faces_of_four_corners() {
        let mesh = LocalMesh::new(&Solid::Cuboid(Vec3::new(0.5, 1.0, 2.0)), DETAIL, false);
        assert_eq!(mesh.vertex_count(), 24);
        assert_eq!(mesh.indices.len(), 36);
        outward(&mesh);
        // Tiled in 2 m tiles, a 4 x 8 x 1 box has faces of 2 x 4, 4 x 1 and 2 x 1 tiles, two of
        // each, of four corners each.
        let tiled = LocalMesh::new(&Solid::Cuboid(Vec3::new(2.0, 4.0, 0.5)), DETAIL, true);
        assert!(tiled.tones.contains(&DARK_TILE));
        let tiles = 2 * (2 * 4) + 2 * 4 + 2 * 2;
        assert_eq!(tiled.vertex_count(), 4 * tiles);
    }

    #[test]
    fn spheres_and_capsules_lie_on_their_surface() {
        let sphere = LocalMesh::new(&Solid::Sphere(0.7), DETAIL, false);
        outward(&sphere);
        assert!(sphere
            .positions
            .iter()
            .all(|p| (p.length() - 0.7).abs() < 1e-5));
        let capsule = LocalMesh::new(&Solid::Capsule(1.0, 0.5), DETAIL, false);
        outward(&capsule);
        // Every point is 0.5 from the segment between (0, -1, 0) and (0, 1, 0).
        for p in &capsule.positions {
            let on_axis = Vec3::new(0.0, p.y.clamp(-1.0, 1.0), 0.0);
            assert!(((*p - on_axis).length() - 0.5).abs() < 1e-5, "{p}");
        }
        assert!((capsule.positions.iter().map(|p| p.y).fold(0.0, f32::max) - 1.5).abs() < 1e-5);
    }

    #[test]
    fn light_is_brightest_facing_it() {
        let light = Light::default();
        let facing = light.intensity(light.towards);
        assert!(facing > light.intensity(Vec3::Y));
        assert!(light.intensity(-Vec3::Y) < light.intensity(Vec3::X));
        assert!(
            light.intensity(-light.towards) > 0.0,
            "ambient keeps the dark side visible"
        );
    }

    #[test]
    fn batches_split_and_index_within_their_mesh() {
        let sphere = LocalMesh::new(&Solid::Sphere(1.0), DETAIL, false);
        let mut batch = Batch::default();
        let pose = Pose {
            rotation: Quat::IDENTITY,
            translation: Vec3::ZERO,
        };
        let n = BATCH_VERTICES / sphere.vertex_count() + 3;
        for _ in 0..n {
            batch.add(&sphere, &pose, palette::STATIC, &Light::default());
        }
        assert!(batch.used >= 2);
        assert_eq!(batch.vertex_count(), n * sphere.vertex_count());
        for mesh in &batch.meshes[..batch.used] {
            assert!(mesh.vertices.len() <= BATCH_VERTICES);
            assert!(mesh
                .indices
                .iter()
                .all(|&i| (i as usize) < mesh.vertices.len()));
        }
        batch.clear();
        assert_eq!(batch.vertex_count(), 0);
    }
}
