//! Where the engine meets the renderer: the engine's shapes become [`Solid`]s, its poses and
//! points (nalgebra) become glam, and each frame's bodies become lit triangles in a [`Batch`].
//! The only module of the viewer that names both maths libraries.

use std::collections::HashMap;

use macroquad::prelude::{Color, Quat, Vec3};
use sprung::collision::shape::Shape;
use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{BodyHandle, BodyKind, ColliderHandle, World};

use crate::impostor::{add_sphere, SphereMaterial};
use crate::render::{palette, Batch, Detail, Light, LocalMesh, Pose, Solid};

/// A nalgebra vector as glam.
pub fn vec3(v: &Vector<Real>) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

/// A nalgebra point as glam.
pub fn point3(p: &Point<Real>) -> Vec3 {
    Vec3::new(p.x, p.y, p.z)
}

/// A glam vector as a nalgebra point.
pub fn to_point(v: Vec3) -> Point<Real> {
    Point::new(v.x, v.y, v.z)
}

/// A glam vector as a nalgebra vector.
pub fn to_vector(v: Vec3) -> Vector<Real> {
    Vector::new(v.x, v.y, v.z)
}

/// A nalgebra isometry as the renderer's pose.
pub fn pose(iso: &Isometry<Real>) -> Pose {
    let q = iso.rotation.quaternion();
    Pose {
        rotation: Quat::from_xyzw(q.i, q.j, q.k, q.w),
        translation: vec3(&iso.translation.vector),
    }
}

/// The renderer's description of an engine shape.
pub fn solid(shape: &Shape) -> Solid {
    let triangle = |t: &sprung::collision::parry3d::shape::Triangle| {
        [point3(&t.a), point3(&t.b), point3(&t.c)]
    };
    match shape {
        Shape::Sphere(ball) => Solid::Sphere(ball.radius),
        Shape::Cuboid(cuboid) => Solid::Cuboid(vec3(&cuboid.half_extents)),
        Shape::Capsule(capsule) => Solid::Capsule(capsule.half_height(), capsule.radius),
        Shape::ConvexHull(hull) => {
            let points = hull.points().iter().map(point3).collect();
            let around = hull.vertices_adj_to_face();
            let faces = hull
                .faces()
                .iter()
                .map(|face| {
                    let first = face.first_vertex_or_edge as usize;
                    let count = face.num_vertices_or_edges as usize;
                    (around[first..first + count].to_vec(), vec3(&face.normal))
                })
                .collect();
            Solid::Polyhedron(points, faces)
        }
        Shape::Triangle(t) => Solid::Triangles(vec![triangle(t)]),
        Shape::HalfSpace(half_space) => Solid::Plane(vec3(&half_space.normal)),
        Shape::TriMesh(mesh) => Solid::Triangles(mesh.triangles().map(|t| triangle(&t)).collect()),
        Shape::HeightField(field) => {
            Solid::Triangles(field.triangles().map(|t| triangle(&t)).collect())
        }
    }
}

/// What the viewer shows of a world: each collider's mesh (made once), the static geometry lit
/// once, and this frame's moving bodies.
pub struct SceneView {
    meshes: HashMap<ColliderHandle, LocalMesh>,
    detail: Detail,
    light: Light,
    /// Static geometry, lit once: it never moves.
    statics: Batch,
    /// This frame's triangles: the statics, then every moving body.
    frame: Batch,
    /// The ball drawn at each point of a rope or cloth.
    point_mesh: Option<LocalMesh>,
    /// The capsule drawn for each character.
    character_mesh: Option<LocalMesh>,
    /// Whether spheres are drawn as impostors (into `spheres`) rather than meshes.
    impostors: bool,
    /// This frame's spheres, as impostors' quads.
    spheres: Batch,
}

/// How spheres are drawn: the `--spheres` option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SphereStyle {
    /// Impostors when the scene has more than [`MANY_SPHERES`], meshes otherwise.
    #[default]
    Auto,
    /// Always meshes (triangles lit per vertex).
    Mesh,
    /// Always impostors (a quad each, lit per pixel).
    Impostor,
}

/// Above this many spheres (sphere colliders and mass-spring points) a scene's spheres are
/// impostors by default: each is small on screen, where an impostor's unsmoothed outline does
/// not show, and as meshes they would cost software GL most of the frame.
pub const MANY_SPHERES: usize = 500;

impl SphereStyle {
    /// Whether a scene of `spheres` spheres draws them as impostors.
    pub fn impostors(self, spheres: usize) -> bool {
        match self {
            SphereStyle::Auto => spheres > MANY_SPHERES,
            SphereStyle::Mesh => false,
            SphereStyle::Impostor => true,
        }
    }
}

/// The spheres of `world` (sphere colliders) and `points` of a mass-spring system.
pub fn sphere_count(world: &World, points: usize) -> usize {
    let colliders = world
        .bodies()
        .flat_map(|(_, b)| b.colliders().iter())
        .filter(|&&c| matches!(world.collider(c).map(|c| c.shape()), Some(Shape::Sphere(_))))
        .count();
    colliders + points
}

/// How each body is coloured this frame.
pub struct Tint<'a> {
    /// The body being dragged, drawn lighter.
    pub dragged: Option<BodyHandle>,
    /// Islands by body, when bodies are coloured by island.
    pub islands: Option<&'a HashMap<BodyHandle, u32>>,
    /// A rope or cloth of the spring toolkit beside the world: its points are drawn as balls.
    pub mass_spring: Option<&'a sprung::spring::MassSpring>,
    /// Kinematic characters beside the world, and which one the player drives (drawn lighter).
    pub crowd: Option<(&'a [sprung_control::Character], usize)>,
}

impl SceneView {
    /// The view of `world`: meshes for its colliders, round shapes cut more coarsely when
    /// there are many; moving spheres as impostors if `impostors`.
    pub fn new(world: &World, impostors: bool) -> SceneView {
        let colliders: usize = world.bodies().map(|(_, b)| b.colliders().len()).sum();
        let segments = match colliders {
            0..=500 => 24,
            501..=3000 => 12,
            _ => 8,
        };
        let mut view = SceneView {
            meshes: HashMap::new(),
            detail: Detail {
                segments,
                tile: 2.0,
            },
            light: Light::default(),
            statics: Batch::default(),
            frame: Batch::default(),
            point_mesh: None,
            character_mesh: None,
            impostors,
            spheres: Batch::default(),
        };
        for (_, body) in world.bodies() {
            if body.kind() != BodyKind::Static {
                continue;
            }
            for &handle in body.colliders() {
                let Some(collider) = world.collider(handle) else {
                    continue;
                };
                let colour = if collider.contact_spring().is_some() {
                    palette::SOFT
                } else if matches!(collider.shape(), Shape::HalfSpace(_)) {
                    palette::FLOOR
                } else if matches!(collider.shape(), Shape::TriMesh(_) | Shape::HeightField(_)) {
                    palette::TERRAIN
                } else {
                    palette::STATIC
                };
                let pose = pose(&(body.pose() * collider.local_pose()));
                let mesh = LocalMesh::new(&solid(collider.shape()), view.detail, true);
                view.statics.add(&mesh, &pose, colour, &view.light);
            }
        }
        view
    }

    /// Fills this frame's batch: the statics, and every other body at its pose interpolated
    /// `alpha` of the way from the previous step to the last.
    pub fn update(&mut self, world: &World, alpha: Real, tint: &Tint) {
        self.frame.clear();
        self.frame.append(&self.statics);
        self.spheres.clear();
        for (handle, body) in world.bodies() {
            if body.kind() == BodyKind::Static {
                continue;
            }
            let Some(body_pose) = world.interpolated_pose(handle, alpha) else {
                continue;
            };
            let mut colour = match (body.kind(), tint.islands) {
                (BodyKind::Kinematic, _) => palette::KINEMATIC,
                (_, Some(islands)) => {
                    palette::dynamic(islands.get(&handle).copied().unwrap_or(u32::MAX))
                }
                _ => palette::dynamic(body_index(handle)),
            };
            if body.is_sleeping() {
                colour = palette::asleep(colour);
            } else if tint.dragged == Some(handle) {
                colour = palette::highlighted(colour);
            }
            for &c in body.colliders() {
                let Some(collider) = world.collider(c) else {
                    continue;
                };
                let tint = if collider.contact_spring().is_some() {
                    palette::SOFT
                } else {
                    colour
                };
                let pose = pose(&(body_pose * collider.local_pose()));
                if let (true, Shape::Sphere(ball)) = (self.impostors, collider.shape()) {
                    add_sphere(
                        &mut self.spheres,
                        pose.translation,
                        ball.radius,
                        pose.rotation,
                        tint,
                    );
                    continue;
                }
                let detail = self.detail;
                let mesh = self
                    .meshes
                    .entry(c)
                    .or_insert_with(|| LocalMesh::new(&solid(collider.shape()), detail, false));
                self.frame.add(mesh, &pose, tint, &self.light);
            }
        }
        if let Some((characters, player)) = tint.crowd {
            let detail = self.detail;
            for (i, character) in characters.iter().enumerate() {
                let mesh = self.character_mesh.get_or_insert_with(|| {
                    LocalMesh::new(&solid(character.shape()), detail, false)
                });
                let colour = if i == player {
                    palette::highlighted(CHARACTER)
                } else {
                    CHARACTER
                };
                let at = pose(&character.pose());
                self.frame.add(mesh, &at, colour, &self.light);
            }
        }
        if let Some(system) = tint.mass_spring {
            let radius = system.radius.max(0.03);
            // Many small balls: a coarse mesh does.
            let detail = Detail {
                segments: 8,
                ..self.detail
            };
            let ball = self
                .point_mesh
                .get_or_insert_with(|| LocalMesh::new(&Solid::Sphere(radius), detail, false));
            for p in system.points() {
                if self.impostors {
                    add_sphere(
                        &mut self.spheres,
                        point3(p),
                        radius,
                        Quat::IDENTITY,
                        MASS_SPRING,
                    );
                    continue;
                }
                let at = Pose {
                    rotation: Quat::IDENTITY,
                    translation: point3(p),
                };
                self.frame.add(ball, &at, MASS_SPRING, &self.light);
            }
        }
    }

    /// Draws this frame's triangles and spheres with the current camera, which is at `eye`
    /// with `up` its up direction.
    pub fn draw(&self, spheres: Option<&SphereMaterial>, eye: Vec3, up: Vec3) {
        self.frame.draw();
        if let Some(material) = spheres {
            material.draw(&self.spheres, eye, up, &self.light);
        }
    }

    /// Vertices drawn this frame.
    pub fn vertex_count(&self) -> usize {
        self.frame.vertex_count() + self.spheres.vertex_count()
    }
}

/// A stable number for a body, for its colour: a hash of its handle (std's default hasher has
/// fixed keys, so the colours are the same on every run).
fn body_index(handle: BodyHandle) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    handle.hash(&mut hasher);
    hasher.finish() as u32
}

/// Bodies that move together this step: linked by a contact that touches or by a joint,
/// through other moving bodies (static ones do not link). Each moving body's island number.
pub fn islands(world: &World) -> HashMap<BodyHandle, u32> {
    let moving: Vec<BodyHandle> = world
        .bodies()
        .filter(|(_, b)| b.kind() != BodyKind::Static)
        .map(|(h, _)| h)
        .collect();
    let slot: HashMap<BodyHandle, usize> =
        moving.iter().enumerate().map(|(i, &h)| (h, i)).collect();
    let mut parent: Vec<usize> = (0..moving.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut join = |a: BodyHandle, b: BodyHandle| {
        if let (Some(&i), Some(&k)) = (slot.get(&a), slot.get(&b)) {
            let (ri, rk) = (root(&mut parent, i), root(&mut parent, k));
            parent[ri.max(rk)] = ri.min(rk);
        }
    };
    for (a, b, manifold) in world.contacts() {
        if manifold.points.iter().any(|p| p.separation <= 0.0) {
            if let (Some(ca), Some(cb)) = (world.collider(a), world.collider(b)) {
                join(ca.body(), cb.body());
            }
        }
    }
    for (_, joint) in world.joints() {
        let (a, b) = joint.bodies();
        join(a, b);
    }
    let mut number = HashMap::new();
    let mut islands = HashMap::new();
    for (i, &h) in moving.iter().enumerate() {
        let r = root(&mut parent, i);
        let next = number.len() as u32;
        islands.insert(h, *number.entry(r).or_insert(next));
    }
    islands
}

/// The colour of a point of the mass-spring system, and of its springs.
pub const MASS_SPRING: Color = Color::new(0.85, 0.35, 0.25, 1.0);

/// The colour of the characters.
pub const CHARACTER: Color = Color::new(0.25, 0.55, 0.85, 1.0);
