//! Convex shape against triangle mesh or height field: the manifold stage's case for static level
//! geometry, one convex pair per nearby triangle.
//!
//! In: a [`Shape::TriMesh`] or [`Shape::HeightField`] and a convex shape, their poses, a margin.
//! Out: manifolds with normals from the mesh to the shape, each tagged with its first triangle
//! ([`Manifold::sub_shape`]), point ids mixed with the triangle index so that impulses carry over
//! per (triangle, feature).
//!
//! How: the shape's box, in the mesh's frame and grown by the margin, picks the triangles (parry3d's
//! BVH for a mesh, the cells under the box for a height field). Each triangle is a flat convex core
//! (centred on its centroid, so EPA's orientation hint is the offset from the triangle itself);
//! GJK/EPA give the contact and [`crate::manifold`] clips it. Triangles are one-sided: a contact
//! whose normal is the back of the face is dropped, since the solid lies behind the front.
//!
//! Internal edges. A box sliding over a floor of many triangles sees, at each seam, a triangle
//! whose nearest feature is its edge and whose EPA normal leans sideways: the box would catch on a
//! seam of a flat floor. So each contact whose feature on the triangle is an edge or a vertex asks
//! whether that edge is *active*: only an edge whose neighbour bends away (convex), or that has no
//! neighbour, can push sideways. An edge between coplanar triangles or in a concave crease is
//! inactive, and its contact is taken along the triangle's face normal instead (a vertex is active
//! if one of the triangle's two edges at it is). This is safe because in front of an inactive
//! edge the neighbour never rises above the triangle's plane: the shape's lowest point along the
//! face normal is no deeper than what the neighbour reports itself. A mesh's neighbours come from
//! parry3d's edge pseudo-normals (the sum of the face normals at the edge, computed by
//! [`Shape::trimesh`]); a height field's from the triangles of the cells around.
//!
//! Duplicates: manifolds of different triangles whose normals agree within 1e-3 rad (coplanar
//! triangles, or inactive edges turned to the face normal) are merged into one, points closer
//! than a ten-thousandth of the shape's size are kept once, and more than four are reduced by the
//! manifold stage's rule. A box on a tessellated floor then gets one four-point manifold, like a
//! box on a single slab.

use parry3d::bounding_volume::BoundingVolume;
use parry3d::math::{Isometry, Point, Real, Translation, Vector};
use parry3d::shape::{HeightField, TriMesh, Triangle};
use smallvec::SmallVec;

use crate::contact::{mix, Contact, Manifold, ManifoldPoint};
use crate::epa;
use crate::manifold::{clip, pick_four, plane_axes};
use crate::shape::Shape;

/// cos of the largest angle (about 1e-3 rad) between a contact normal and a face normal taken as
/// the face; also between two manifolds' normals that are merged.
const FACE_COS: Real = 1.0 - 5.0e-7;
/// How far (sine of the angle) a neighbour must bend away for an edge to be convex (active):
/// about 0.06 degrees, above the rounding of coplanar float triangles.
const CONVEX_TOLERANCE: Real = 1.0e-3;

/// The manifolds of `level` (a mesh or height field at `pose_level`) against convex `shape` at
/// `pose`, appended to `out`. Anything else appends nothing.
pub(crate) fn manifolds(
    level: &Shape,
    pose_level: &Isometry<Real>,
    shape: &Shape,
    pose: &Isometry<Real>,
    margin: Real,
    out: &mut SmallVec<[Manifold; 1]>,
) {
    if shape.is_level() {
        return;
    }
    let local = pose_level.inv_mul(pose);
    let query = shape.aabb(&local).loosened(margin.max(0.0));
    let pair = Pair {
        level,
        pose_level,
        shape,
        pose,
        margin,
        duplicate: 1.0e-4 * shape.scale().max(1.0e-3),
    };
    match level {
        Shape::TriMesh(mesh) => {
            for id in mesh.bvh().intersect_aabb(&query) {
                pair.triangle(id, &mesh.triangle(id), out);
            }
        }
        Shape::HeightField(field) => {
            field.map_elements_in_local_aabb(&query, &mut |id, triangle| {
                pair.triangle(id, triangle, out)
            });
        }
        _ => {}
    }
}

/// What every triangle of one pair needs.
struct Pair<'a> {
    level: &'a Shape,
    pose_level: &'a Isometry<Real>,
    shape: &'a Shape,
    pose: &'a Isometry<Real>,
    margin: Real,
    /// Points of two triangles' manifolds closer than this (m) are one point.
    duplicate: Real,
}

/// The feature of a triangle that a contact normal leans on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Touch {
    Face,
    Back,
    /// Edge k, from corner k to corner k + 1.
    Edge(usize),
    Vertex(usize),
}

impl Pair<'_> {
    /// The contact of triangle `id` (mesh frame), merged into `out`.
    fn triangle(&self, id: u32, triangle: &Triangle, out: &mut SmallVec<[Manifold; 1]>) {
        let Some(face) = triangle.normal() else {
            return; // zero area: its neighbours cover it
        };
        let face = face.into_inner();
        let world_face = self.pose_level.rotation * face;
        let corner = self.pose_level * triangle.a;
        // Cheap rejections on the plane: wholly above it by more than the margin, or wholly
        // behind it (one-sided).
        let lowest = self.support(&-world_face);
        let plane_separation = (lowest - corner).dot(&world_face);
        if plane_separation > self.margin {
            return;
        }
        if (self.support(&world_face) - corner).dot(&world_face) < 0.0 {
            return;
        }

        let centroid =
            Point::from((triangle.a.coords + triangle.b.coords + triangle.c.coords) / 3.0);
        let core = Shape::Triangle(Triangle::new(
            triangle.a - centroid.coords,
            triangle.b - centroid.coords,
            triangle.c - centroid.coords,
        ));
        let pose_core = self.pose_level * Translation::from(centroid.coords);
        let Some(mut contact) = epa::contact(&core, &pose_core, self.shape, self.pose, self.margin)
        else {
            return;
        };
        let local_normal = self
            .pose_level
            .rotation
            .inverse_transform_vector(&contact.normal);
        let active = match touch(triangle, &face, &local_normal) {
            Touch::Face => true,
            Touch::Back => return,
            Touch::Edge(k) => self.edge_active(id, triangle, &face, k),
            Touch::Vertex(k) => {
                self.edge_active(id, triangle, &face, k)
                    || self.edge_active(id, triangle, &face, (k + 2) % 3)
            }
        };
        if !active {
            // Along the face normal: the shape's lowest point over the plane.
            contact = Contact {
                separation: plane_separation,
                normal: world_face,
                point_a: lowest - world_face * plane_separation,
                point_b: lowest,
            };
        }
        let mut m = Manifold::default();
        clip(
            &core,
            &pose_core,
            self.shape,
            self.pose,
            &contact,
            self.margin,
            &mut m,
        );
        if m.points.is_empty() {
            return;
        }
        m.sub_shape = id;
        for p in &mut m.points {
            p.id = mix(p.id, id);
        }
        self.merge(m, out);
    }

    /// The support point of the whole shape along world direction `dir`, in the world.
    fn support(&self, dir: &Vector<Real>) -> Point<Real> {
        let local = self.pose.rotation.inverse_transform_vector(dir);
        self.pose * self.shape.support(&local)
    }

    /// Whether edge `k` of triangle `id` may push along a normal other than the face's: true
    /// if it is convex or on the boundary, false between coplanar triangles or in a crease.
    fn edge_active(&self, id: u32, triangle: &Triangle, face: &Vector<Real>, k: usize) -> bool {
        let corners = [triangle.a, triangle.b, triangle.c];
        let (p, q) = (corners[k], corners[(k + 1) % 3]);
        let neighbour = match self.level {
            Shape::TriMesh(mesh) => mesh_neighbour(mesh, id, face, k),
            Shape::HeightField(field) => field_neighbour(field, triangle, &p, &q),
            _ => None,
        };
        let Some(neighbour) = neighbour else {
            return true;
        };
        // Outward in the triangle's plane, across the edge (counter-clockwise winding).
        let Some(outward) = (q - p).cross(face).try_normalize(Real::MIN_POSITIVE) else {
            return true;
        };
        neighbour.dot(&outward) > CONVEX_TOLERANCE
    }

    /// Adds `m` to the manifold of the same normal in `out`, or as a new one.
    fn merge(&self, m: Manifold, out: &mut SmallVec<[Manifold; 1]>) {
        let Some(same) = out.iter_mut().find(|o| o.normal.dot(&m.normal) >= FACE_COS) else {
            out.push(m);
            return;
        };
        let mut all: SmallVec<[ManifoldPoint; 12]> = same.points.iter().copied().collect();
        let near = self.duplicate * self.duplicate;
        for p in &m.points {
            if all
                .iter()
                .all(|q| (q.point_b - p.point_b).norm_squared() > near)
            {
                all.push(*p);
            }
        }
        if all.len() > 4 {
            let (t1, t2) = plane_axes(&same.normal);
            let keep = pick_four(&all, &t1, &t2);
            same.points = keep.iter().map(|&i| all[i]).collect();
        } else {
            same.points = all.into_iter().collect();
        }
    }
}

/// Which feature of `triangle` (unit normal `face`) supports it along `normal` (both in the
/// mesh's frame).
fn touch(triangle: &Triangle, face: &Vector<Real>, normal: &Vector<Real>) -> Touch {
    let cos = normal.dot(face);
    if cos >= FACE_COS {
        return Touch::Face;
    }
    if cos <= -FACE_COS {
        return Touch::Back;
    }
    let corners = [triangle.a, triangle.b, triangle.c];
    let along = corners.map(|c| c.coords.dot(normal));
    let top = along[0].max(along[1]).max(along[2]);
    let size = (triangle.b - triangle.a)
        .norm()
        .max((triangle.c - triangle.b).norm())
        .max((triangle.a - triangle.c).norm());
    let tolerance = 1.0e-4 * size;
    let on = along.map(|d| d >= top - tolerance);
    match on {
        [true, true, false] => Touch::Edge(0),
        [false, true, true] => Touch::Edge(1),
        [true, false, true] => Touch::Edge(2),
        [true, false, false] => Touch::Vertex(0),
        [false, true, false] => Touch::Vertex(1),
        [false, false, true] => Touch::Vertex(2),
        // All three: the normal lies in the plane's normal direction after all.
        _ if cos >= 0.0 => Touch::Face,
        _ => Touch::Back,
    }
}

/// The (unit) normal of the triangles across edge `k` of mesh triangle `id`, from parry3d's edge
/// pseudo-normals (the sum of the normals of every triangle at the edge, this one included):
/// `None` on the boundary, or if the mesh was built without them (every edge then counts active).
fn mesh_neighbour(mesh: &TriMesh, id: u32, face: &Vector<Real>, k: usize) -> Option<Vector<Real>> {
    let pseudo = mesh
        .pseudo_normals()?
        .edges_pseudo_normal
        .get(id as usize)?[k];
    let others = pseudo - face;
    if others.norm() < 0.5 {
        return None; // only this triangle's own normal: a boundary edge
    }
    others.try_normalize(Real::MIN_POSITIVE)
}

/// The normal of the height field triangle other than `triangle` that has the edge `p q`, found
/// among the cells around the triangle.
fn field_neighbour(
    field: &HeightField,
    triangle: &Triangle,
    p: &Point<Real>,
    q: &Point<Real>,
) -> Option<Vector<Real>> {
    let centroid = Point::from((triangle.a.coords + triangle.b.coords + triangle.c.coords) / 3.0);
    let (i, j) = field.closest_cell_at_point(&centroid);
    let near = 1.0e-4 * field.cell_width().min(field.cell_height()).abs();
    let same = |a: &Point<Real>, b: &Point<Real>| (a - b).norm() <= near;
    let has = |t: &Triangle, x: &Point<Real>| same(&t.a, x) || same(&t.b, x) || same(&t.c, x);
    let own = [triangle.a, triangle.b, triangle.c];
    for ci in i.saturating_sub(1)..=i + 1 {
        for cj in j.saturating_sub(1)..=j + 1 {
            let (left, right) = field.triangles_at(ci, cj);
            for t in [left, right].into_iter().flatten() {
                if has(&t, p) && has(&t, q) && !own.iter().all(|x| has(&t, x)) {
                    return t.normal().map(|n| n.into_inner());
                }
            }
        }
    }
    None
}
