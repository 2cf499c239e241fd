//! The character's ground: keeping its skin (pushed out of what is nearer), the support under
//! it, stepping up onto a ledge, snapping down to the ground it walks over.

use sprung::math::{Isometry, Point, Real, Vector};
use sprung::{BodyHandle, BodyKind, ColliderHandle, Error, QueryFilter, ShapeContact, World};

use super::{Character, Ground, GroundState, GROUND_REACH, PROBE, TINY};

impl Character {
    /// Keeps the skin and finds the ground: pushes the character out of what is nearer than the
    /// skin (bounded), then reads the ground from the same contacts. Returns the distance to
    /// the ground (infinite in the air). `standing`: it stood on walkable ground before the move.
    pub(super) fn settle(
        &mut self,
        world: &World,
        dt: Real,
        standing: bool,
        filter: &QueryFilter,
    ) -> Result<Real, Error> {
        let reach = PROBE * self.settings.skin;
        let mut contacts = std::mem::take(&mut self.contacts);
        let found =
            world.contacts_with_shape_into(&self.shape, &self.pose(), reach, filter, &mut contacts);
        let result = found.and_then(|()| self.settle_on(world, dt, standing, &contacts, filter));
        self.contacts = contacts;
        result
    }

    /// [`Character::settle`] on the contacts found.
    pub(super) fn settle_on(
        &mut self,
        world: &World,
        dt: Real,
        standing: bool,
        contacts: &[ShapeContact],
        filter: &QueryFilter,
    ) -> Result<Real, Error> {
        let s = &self.settings;
        let (up, skin) = (s.up, s.skin);
        // Gauss-Seidel over the contacts' planes: each pushes the character out to the skin.
        let mut push = Vector::zeros();
        for _ in 0..4 {
            let mut moved = false;
            for c in contacts {
                let short = skin - (c.distance + c.normal.dot(&push));
                if short <= 1.0e-7 {
                    continue;
                }
                let along = c.normal.dot(&up);
                let level = c.normal - up * along;
                let sideways = level.norm();
                push += if s.walkable(&c.normal) {
                    // Walkable ground lifts it straight up: standing on a slope, it stays put.
                    up * (short / along)
                } else if standing && along > 0.0 && sideways > 1.0e-3 {
                    // Standing, ground too steep (or the edge of a step) pushes it sideways
                    // only: what it cannot walk up, it is not lifted up either. (Sliding down
                    // steep ground, it is pushed along the normal, which keeps the slide exact.)
                    level * (short / (sideways * sideways))
                } else {
                    c.normal * short
                };
                moved = true;
            }
            if !moved {
                break;
            }
        }
        let budget = skin + s.max_recovery_speed * dt;
        let length = push.norm();
        if length > budget {
            push *= budget / length;
        }
        self.position += push;

        // The ground: the nearest contact within reach that stands on walkable ground (its
        // normal, or the face under an edge it rests on), else the nearest steep one.
        let rising = self.fall.dot(&up) > 0.0;
        let mut best: Option<(bool, Real, usize, Vector<Real>)> = None;
        for (i, c) in contacts.iter().enumerate() {
            let distance = c.distance + c.normal.dot(&push);
            if distance > GROUND_REACH * skin || c.normal.dot(&up) <= 1.0e-3 {
                continue;
            }
            let (centre, point) = (self.position, c.point + push);
            let support = self.support(world, &centre, &point, &c.normal, filter)?;
            let walkable = support.is_some();
            let better = best.is_none_or(|(w, d, _, _)| (walkable, -distance) > (w, -d));
            if better {
                best = Some((walkable, distance, i, support.unwrap_or(c.normal)));
            }
        }
        let (ground, gap) = match best {
            Some((walkable, gap, i, normal)) if !(rising && walkable) => {
                let c = &contacts[i];
                let state = if walkable {
                    GroundState::OnGround
                } else {
                    GroundState::OnSteepGround
                };
                let ground =
                    self.ground_at(world, state, normal, c.point + push, c.collider, c.body);
                (ground, gap)
            }
            _ => (Ground::air(), Real::INFINITY),
        };
        self.ground = ground;
        Ok(gap)
    }

    /// The walkable normal that holds the character (centred at `centre`) up at a contact
    /// (`point` on the world, `normal` its contact normal): the normal itself if walkable; for
    /// a contact on an edge (a normal too steep, but upward), the face beyond the edge, found by
    /// a short ray down just past the point, away from the character's axis. A capsule resting
    /// on the edge of a step stands on the step.
    pub(super) fn support(
        &self,
        world: &World,
        centre: &Point<Real>,
        point: &Point<Real>,
        normal: &Vector<Real>,
        filter: &QueryFilter,
    ) -> Result<Option<Vector<Real>>, Error> {
        let up = self.settings.up;
        if self.settings.walkable(normal) {
            return Ok(Some(*normal));
        }
        if normal.dot(&up) <= 1.0e-3 {
            return Ok(None);
        }
        let away = point - centre;
        let Some(out) = (away - up * away.dot(&up)).try_normalize(1.0e-6) else {
            return Ok(None);
        };
        let probe = self.settings.skin;
        let from = point + out * 1.0e-3 + up * probe;
        let hit = world.cast_ray(from, -up, 2.0 * probe, true, filter)?;
        Ok(hit.map(|h| h.normal).filter(|n| self.settings.walkable(n)))
    }

    /// Steps up onto what blocks the horizontal motion `level`: rises by at most the step
    /// height, goes along (at least the step's minimum width must be free up there), and comes
    /// down onto walkable ground higher than it started. Moves the character and returns true
    /// if it could.
    pub(super) fn step_up(
        &mut self,
        world: &World,
        level: Vector<Real>,
        filter: &QueryFilter,
    ) -> Result<bool, Error> {
        let s = self.settings;
        let (up, keep) = (s.up, 0.5 * s.skin);
        let length = level.norm();
        if length < TINY {
            return Ok(false);
        }
        let dir = level / length;
        let shape = &self.shape;
        let at = |p: Point<Real>| Isometry::from_parts(p.coords.into(), self.tilt);
        let rise = world
            .cast_shape_to(shape, &self.pose(), up, s.step_height, keep, filter)?
            .map_or(s.step_height, |h| h.toi);
        if rise < keep {
            return Ok(false);
        }
        let raised = self.position + up * rise;
        let need = length.max(s.step_min_width);
        let free = world
            .cast_shape_to(shape, &at(raised), dir, need, keep, filter)?
            .map_or(need, |h| h.toi);
        if free + 1.0e-6 < s.step_min_width.min(need) {
            return Ok(false);
        }
        let ahead = raised + dir * length.min(free);
        let Some(land) = world.cast_shape_to(shape, &at(ahead), -up, rise, s.skin, filter)? else {
            return Ok(false); // nothing under it up there: not a step
        };
        if land.toi >= rise - 1.0e-4 {
            return Ok(false); // no higher than before
        }
        let landed = ahead - up * land.toi;
        if (self.support(world, &landed, &land.point, &land.normal, filter)?).is_none() {
            return Ok(false);
        }
        if !s.step_on_dynamic
            && world
                .body(land.body)
                .is_some_and(|b| b.kind() == BodyKind::Dynamic)
        {
            return Ok(false);
        }
        self.position = landed;
        Ok(true)
    }

    /// Looks down `reach` (m) for walkable ground and moves onto it, a skin above.
    pub(super) fn snap(
        &mut self,
        world: &World,
        reach: Real,
        filter: &QueryFilter,
    ) -> Result<(), Error> {
        let s = &self.settings;
        if reach <= 0.0 {
            return Ok(());
        }
        let down = -s.up;
        let hit = world.cast_shape_to(&self.shape, &self.pose(), down, reach, s.skin, filter)?;
        let Some(hit) = hit else {
            return Ok(());
        };
        let below = self.position + down * hit.toi;
        if let Some(normal) = self.support(world, &below, &hit.point, &hit.normal, filter)? {
            self.position = below;
            self.ground = self.ground_at(
                world,
                GroundState::OnGround,
                normal,
                hit.point,
                hit.collider,
                hit.body,
            );
        }
        Ok(())
    }

    /// The ground record for a contact: with the velocity of its point.
    pub(super) fn ground_at(
        &self,
        world: &World,
        state: GroundState,
        normal: Vector<Real>,
        point: Point<Real>,
        collider: ColliderHandle,
        body: BodyHandle,
    ) -> Ground {
        let velocity = world.body(body).map_or(Vector::zeros(), |b| {
            b.linear_velocity() + b.angular_velocity().cross(&(point - b.center_of_mass()))
        });
        Ground {
            state,
            normal,
            point,
            collider: Some(collider),
            body: Some(body),
            velocity,
        }
    }
}
