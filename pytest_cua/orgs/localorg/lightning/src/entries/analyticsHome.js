// The entry script of pages with <one-analytics-home> placeholders (the Reports and Dashboards homes).
import '@lwc/synthetic-shadow';
import 'lightning/iconSvgTemplatesStandard'; // the report and dashboard icons, rendered at once
import AnalyticsHome from 'one/analyticsHome';
import { mountEach } from 'one/mount';

mountEach('one-analytics-home', AnalyticsHome);
